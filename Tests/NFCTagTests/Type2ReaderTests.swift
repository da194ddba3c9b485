import NFCTag
import TestSupport
import Testing

/// Reads a Type 2 memory image through `TagReader` and returns the reading and the commands sent.
private func read(_ memory: Type2Memory) async throws -> TagReading {
    try await TagReader().read(atr: Fixtures.ntagATR, channel: memory)
}

@Test func factoryNTAG213IsEmptyInOneRead() async throws {
    let channel = ScriptedChannel([
        (Fixtures.getUID, Fixtures.uidResponse),
        (Fixtures.readPage(3), Hex.bytes("E1 10 12 00  01 03 A0 0C  34 03 00 FE  00 00 00 00  90 00")),
    ])
    let reading = try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    #expect(reading == TagReading(uid: Hex.bytes("04A1B2C3D4E580"), technology: .type2, content: .empty))
    #expect(channel.isFinished)
}

@Test func ntag213With40ByteMessageTakesFourReads() async throws {
    let message = Fixtures.uriMessage(length: 40)
    let memory = Type2Memory(
        image: Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: Fixtures.ntag213DataArea(message: message)))
    let reading = try await read(memory)
    #expect(reading.content == .message(message))
    #expect(memory.sent == [Fixtures.getUID] + [3, 7, 11, 15].map { Fixtures.readPage($0) })
}

@Test func onePagePerAnswerReaderAdvancesByWhatCameBack() async throws {
    let message = Fixtures.uriMessage(length: 40)
    let memory = Type2Memory(
        image: Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: Fixtures.ntag213DataArea(message: message)),
        kind: .onePage)
    let reading = try await read(memory)
    #expect(reading.content == .message(message))
    // The NDEF value ends at data-area byte 47 (tag byte 63, page 15): pages 3 through 15, one each.
    #expect(memory.reads == (3...15).map { Fixtures.readPage($0) })
}

@Test(arguments: [0x6C04, 0x6700, 0x6300] as [UInt16])
func readerRefusingLe16IsAskedForLe4(status: UInt16) async throws {
    let message = Fixtures.uriMessage(length: 20)
    let memory = Type2Memory(
        image: Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: Fixtures.ntag213DataArea(message: message)),
        kind: .onlyLe4(status: status))
    let reading = try await read(memory)
    #expect(reading.content == .message(message))
    // Value ends at data-area byte 27 (page 10): one refused read, then Le 4 for every page.
    #expect(memory.reads == [Fixtures.readPage(3)] + (3...10).map { Fixtures.readPage($0, 4) })
}

@Test func leRetryAsAScript() async throws {
    let channel = ScriptedChannel(hex: [
        ("FF CA 00 00 00", "6A 81"),
        ("FF B0 00 03 10", "6C 04"),
        ("FF B0 00 03 04", "E1 10 12 00 90 00"),
        ("FF B0 00 04 04", "03 03 D0 00 90 00"),
        ("FF B0 00 05 04", "00 FE 00 00 90 00"),
    ])
    let reading = try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    #expect(reading == TagReading(uid: nil, technology: .type2, content: .message(Hex.bytes("D0 00 00"))))
    #expect(channel.isFinished)
}

@Test func messageFillingTheDataAreaNeverReadsPastIt() async throws {
    let message = Fixtures.uriMessage(length: 136)
    let dataArea = Fixtures.ntag213DataArea(message: message)
    #expect(dataArea.count == 144)
    let memory = Type2Memory(image: Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: dataArea))
    let reading = try await read(memory)
    #expect(reading.content == .message(message))
    // Data area: tag bytes 16..<160, pages 4...39; the last read asks for page 39 alone.
    #expect(
        memory.reads == stride(from: 3, through: 35, by: 4).map { Fixtures.readPage($0) } + [Fixtures.readPage(39, 4)])
}

@Test func ntag216LongMessageUsesThreeByteLength() async throws {
    let message = Fixtures.uriMessage(length: 500)
    let dataArea = [0x03, 0xFF, 0x01, 0xF4] + message + [0xFE]
    let memory = Type2Memory(image: Type2Memory.image(cc: Hex.bytes("E1 10 6D 00"), dataArea: dataArea))
    let reading = try await read(memory)
    #expect(reading.content == .message(message))
    // Value ends at data-area byte 504: page 3 gives 12 bytes, 31 reads of 16 give 496 more.
    #expect(memory.reads == stride(from: 3, through: 127, by: 4).map { Fixtures.readPage($0) })
}

/// A data area with a Lock Control TLV (2 lock bytes at tag byte 48) and a Memory Control TLV (4 reserved
/// bytes at tag byte 32), both inside the NDEF value, filled with `EE`; the message must come out without them.
private func reservedLayout(message: [UInt8]) -> [UInt8] {
    precondition(message.count == 30)
    var area = Hex.bytes("01 03 30 10 04  02 03 20 04 04  03 1E")
    area += message[0..<4] + [0xEE, 0xEE, 0xEE, 0xEE]  // data-area 12..<16, reserved 16..<20
    area += message[4..<16] + [0xEE, 0xEE]  // 20..<32, lock bytes 32..<34
    area += message[16..<30] + [0xFE]  // 34..<48
    return area
}

@Test func lockAndMemoryControlBytesAreSkipped() async throws {
    let message = Fixtures.uriMessage(length: 30)
    let memory = Type2Memory(
        image: Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: reservedLayout(message: message)))
    let reading = try await read(memory)
    #expect(reading.content == .message(message))
    #expect(memory.reads == [3, 7, 11, 15].map { Fixtures.readPage($0) })
    #expect(try Type2TLV.ndefMessage(inDataArea: reservedLayout(message: message)) == .message(message))
}

@Test(
    arguments: [
        ("00 00 00 03 05 D0 00 00 11 22 FE", TagReading.Content.message(Hex.bytes("D0 00 00 11 22"))),  // NULL TLVs
        ("FD 04 AA BB CC DD 03 03 D0 00 00 FE", .message(Hex.bytes("D0 00 00"))),  // proprietary TLV skipped
        ("FD FF 00 04 AA BB CC DD 03 03 D0 00 00", .message(Hex.bytes("D0 00 00"))),  // 3-byte length, proprietary
        ("42 01 AA 03 03 D0 00 00", .message(Hex.bytes("D0 00 00"))),  // reserved TLV tag skipped by length
        ("01 03 A0 0C 34 FE 03 03 D0 00 00 FE", .absent),  // terminator before NDEF
        ("01 03 A0 0C 34 03 00 FE", .empty),  // factory NTAG213
        ("03 FF 00 00 FE", .empty),  // 3-byte zero length
        // Memory Control reserving data-area bytes 6..<8, between the NDEF TLV's tag and its length
        ("02 03 16 02 04 03 EE EE 03 D0 00 00 FE", .message(Hex.bytes("D0 00 00"))),
        // two overlapping Memory Control areas (12..<14 and 13..<16) merge into one
        ("02 03 1C 02 04 02 03 1D 03 04 03 02 EE EE EE EE D0 00 FE", .message(Hex.bytes("D0 00"))),
    ] as [(String, TagReading.Content)])
func tlvLayouts(dataArea: String, content: TagReading.Content) async throws {
    let memory = Type2Memory(image: Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: Hex.bytes(dataArea)))
    #expect(try await read(memory).content == content)
    #expect(try Type2TLV.ndefMessage(inDataArea: Array(memory.image[16..<160])) == content)
}

@Test func formattedUltralightWithoutNDEFIsAbsentAfterTheWholeDataArea() async throws {
    let memory = Type2Memory(image: Type2Memory.image(cc: Hex.bytes("E1 10 06 00"), dataArea: []))
    #expect(try await read(memory).content == .absent)
    // Data area 48 bytes, tag bytes 16..<64: the last read is page 15 alone.
    #expect(
        memory.reads == [Fixtures.readPage(3), Fixtures.readPage(7), Fixtures.readPage(11), Fixtures.readPage(15, 4)])
}

@Test(arguments: ["00 00 00 00", "E0 10 12 00", "FF FF FF FF"])
func unformattedTagIsAbsentAfterOneRead(cc: String) async throws {
    let memory = Type2Memory(image: Type2Memory.image(cc: Hex.bytes(cc), dataArea: Hex.bytes("03 03 D0 00 00")))
    #expect(try await read(memory).content == .absent)
    #expect(memory.reads == [Fixtures.readPage(3)])
}

@Test func readOnlyCCIsStillRead() async throws {
    let memory = Type2Memory(
        image: Type2Memory.image(cc: Hex.bytes("E1 10 12 0F"), dataArea: Hex.bytes("03 03 D0 00 00 FE")))
    #expect(try await read(memory).content == .message(Hex.bytes("D0 00 00")))
}

@Test(
    arguments: [
        (
            "E1 20 12 00", "", NFCTagError.Code.malformedCapabilityContainer,
            "Type 2 capability container at byte 13: version 2.0 is not supported (major version 1 expected)"
        ),
        (
            "E1 10 00 00", "", .malformedCapabilityContainer,
            "Type 2 capability container at byte 14: data area size is 0"
        ),
        ("E1 10 12 80", "", .readAccessDenied, "Type 2 capability container at byte 15: access 0x80 forbids reading"),
        (
            "E1 10 12 00", "00 00 03 FF 01 2C", .malformedTLV,
            "Type 2 TLV at byte 18: NDEF length 300 runs past the data area (144 bytes)"
        ),
        (
            "E1 10 12 00", "03 8F", .malformedTLV,
            "Type 2 TLV at byte 16: NDEF length 143 runs past the data area (144 bytes)"
        ),
        ("E1 10 12 00", "01 02 A0 0C FE", .malformedTLV, "Type 2 TLV at byte 16: Lock Control length is 2, 3 expected"),
        (
            "E1 10 12 00", "FD 90", .malformedTLV,
            "Type 2 TLV at byte 16: proprietary TLV length 144 runs past the data area (144 bytes)"
        ),
    ] as [(String, String, NFCTagError.Code, String)])
func malformedType2(cc: String, dataArea: String, code: NFCTagError.Code, text: String) async throws {
    let memory = Type2Memory(image: Type2Memory.image(cc: Hex.bytes(cc), dataArea: Hex.bytes(dataArea)))
    let error = await #expect(throws: NFCTagError.self) { try await read(memory) }
    #expect(error?.code == code)
    #expect(error?.description == text)
}

@Test func statusErrorMidReadNamesTheCommand() async throws {
    let channel = ScriptedChannel(hex: [
        ("FF CA 00 00 00", "04 A1 B2 C3 D4 E5 80 90 00"),
        ("FF B0 00 03 10", "E1 10 12 00 03 20 D1 01 1C 55 04 65 78 61 6D 70 90 00"),
        ("FF B0 00 07 10", "6A 81"),
    ])
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    }
    #expect(error?.code == .unexpectedStatus)
    #expect(error?.description == "READ BINARY page 7 answered status 6A 81")
}

@Test(arguments: ["E1 10 12 00 03 90 00", "90 00"])
func answerThatIsNotWholePagesIsAnError(response: String) async throws {
    let channel = ScriptedChannel(hex: [("FF CA 00 00 00", "90 00"), ("FF B0 00 03 10", response)])
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    }
    #expect(error?.code == .unexpectedResponse)
}

/// The 40-byte NTAG213 read as a script: UID, then pages 3, 7, 11, 15.
private func ntag213Script() -> [(command: [UInt8], response: [UInt8])] {
    let message = Fixtures.uriMessage(length: 40)
    let image = Type2Memory.image(cc: Fixtures.ntag213CC, dataArea: Fixtures.ntag213DataArea(message: message))
    return [(Fixtures.getUID, Fixtures.uidResponse)]
        + [3, 7, 11, 15].map { (Fixtures.readPage($0), Array(image[($0 * 4)..<($0 * 4 + 16)]) + [0x90, 0x00]) }
}

@Test func ntag213ScriptReadsTheMessage() async throws {
    let channel = ScriptedChannel(ntag213Script())
    let reading = try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    #expect(reading.content == .message(Fixtures.uriMessage(length: 40)))
    #expect(channel.isFinished)
}

@Test(arguments: 0..<5)
func type2RemovalAtEveryCommandIsTagRemoved(index: Int) async throws {
    let channel = ScriptedChannel(ntag213Script(), removalIndex: index)
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    }
    #expect(error?.code == .tagRemoved)
    #expect(error?.cause is ScriptedChannel.Removed)
    #expect(channel.sent.count == index + 1)
}
