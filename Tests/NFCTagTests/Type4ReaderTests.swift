import NFCTag
import TestSupport
import Testing

private let selectV2 = "00 A4 04 00 07 D2 76 00 00 85 01 01 00"
private let selectV1 = "00 A4 04 00 07 D2 76 00 00 85 01 00"
private let selectCC = "00 A4 00 0C 02 E1 03"
private let readCC = "00 B0 00 00 0F"
private let selectNDEF = "00 A4 00 0C 02 E1 04"
private let ok = "90 00"

/// A standard CC: CCLEN 15, version 2.0, the given MLe, MLc FF, NDEF file E104 of `maxSize`, read access.
private func standardCC(mle: Int, maxSize: Int = 0x0800, read: UInt8 = 0x00) -> String {
    Hex.string([
        0x00, 0x0F, 0x20, UInt8(mle >> 8), UInt8(mle & 0xFF), 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04,
        UInt8(maxSize >> 8), UInt8(maxSize & 0xFF), read, 0x00,
    ]) + "9000"
}

/// The NDEF file's bytes: NLEN (2 bytes) then the message, padded with zeros to `fileSize`.
private func ndefFile(_ message: [UInt8], fileSize: Int = 0x0800) -> [UInt8] {
    let file = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    return file + [UInt8](repeating: 0, count: fileSize - file.count)
}

/// The whole 100-byte-message read with MLe FF: UID, select v2, select CC, read CC, select NDEF, one read.
private func hundredByteScript() -> [(command: [UInt8], response: [UInt8])] {
    let file = ndefFile(Fixtures.uriMessage(length: 100))
    return [
        (Fixtures.getUID, Hex.bytes("08 12 34 56 90 00")),
        (Hex.bytes(selectV2), Hex.bytes(ok)),
        (Hex.bytes(selectCC), Hex.bytes(ok)),
        (Hex.bytes(readCC), Hex.bytes(standardCC(mle: 0xFF))),
        (Hex.bytes(selectNDEF), Hex.bytes(ok)),
        (Hex.bytes("00 B0 00 00 FF"), Array(file[0..<255]) + [0x90, 0x00]),
    ]
}

@Test func version2With100ByteMessageInOneRead() async throws {
    let channel = ScriptedChannel(hundredByteScript())
    let reading = try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    #expect(
        reading
            == TagReading(
                uid: Hex.bytes("08123456"), technology: .type4, content: .message(Fixtures.uriMessage(length: 100))))
    // Five exchanges with the card (selects, CC, one folded NLEN + message read) plus the reader's GET UID.
    #expect(channel.isFinished)
    #expect(channel.sent.count == 6)
}

@Test func version1FallbackUsesP2Zero() async throws {
    let message = Fixtures.uriMessage(length: 20)
    let file = ndefFile(message, fileSize: 0x0100)
    let channel = ScriptedChannel([
        (Fixtures.getUID, Hex.bytes("6A 81")),
        (Hex.bytes(selectV2), Hex.bytes("6A 82")),
        (Hex.bytes(selectV1), Hex.bytes(ok)),
        (Hex.bytes("00 A4 00 00 02 E1 03"), Hex.bytes(ok)),
        (Hex.bytes(readCC), Hex.bytes("000F 10 003B 0034 0406 E104 0100 00FF 9000")),
        (Hex.bytes("00 A4 00 00 02 E1 04"), Hex.bytes(ok)),
        (Hex.bytes("00 B0 00 00 3B"), Array(file[0..<0x3B]) + [0x90, 0x00]),
    ])
    let reading = try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    #expect(reading == TagReading(uid: nil, technology: .type4, content: .message(message)))
    #expect(channel.isFinished)
}

@Test func smallMLeReadsInMLeChunks() async throws {
    let message = Fixtures.uriMessage(length: 100)
    let file = ndefFile(message)
    let channel = ScriptedChannel([
        (Fixtures.getUID, Hex.bytes("08 12 34 56 90 00")),
        (Hex.bytes(selectV2), Hex.bytes(ok)),
        (Hex.bytes(selectCC), Hex.bytes(ok)),
        (Hex.bytes(readCC), Hex.bytes(standardCC(mle: 0x3B))),
        (Hex.bytes(selectNDEF), Hex.bytes(ok)),
        (Hex.bytes("00 B0 00 00 3B"), Array(file[0..<59]) + [0x90, 0x00]),  // NLEN + 57 message bytes
        (Hex.bytes("00 B0 00 3B 2B"), Array(file[59..<102]) + [0x90, 0x00]),  // the remaining 43
    ])
    let reading = try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    #expect(reading.content == .message(message))
    #expect(channel.isFinished)
}

@Test func largeMessageTakesMLeSizedChunks() async throws {
    let message = Fixtures.uriMessage(length: 600)
    let file = ndefFile(message)
    let channel = ScriptedChannel([
        (Fixtures.getUID, Hex.bytes("90 00")),
        (Hex.bytes(selectV2), Hex.bytes(ok)),
        (Hex.bytes(selectCC), Hex.bytes(ok)),
        (Hex.bytes(readCC), Hex.bytes(standardCC(mle: 0x1000))),
        (Hex.bytes(selectNDEF), Hex.bytes(ok)),
        (Hex.bytes("00 B0 00 00 FF"), Array(file[0..<255]) + [0x90, 0x00]),
        (Hex.bytes("00 B0 00 FF FF"), Array(file[255..<510]) + [0x90, 0x00]),
        (Hex.bytes("00 B0 01 FE 5C"), Array(file[510..<602]) + [0x90, 0x00]),
    ])
    #expect(try await TagReader().read(atr: Fixtures.phoneATR, channel: channel).content == .message(message))
    #expect(channel.isFinished)
}

@Test func extendedCCUsesFourByteNLEN() async throws {
    let message = Fixtures.uriMessage(length: 30)
    let file = [0, 0, 0, 30] + message
    let channel = ScriptedChannel([
        (Fixtures.getUID, Hex.bytes("90 00")),
        (Hex.bytes(selectV2), Hex.bytes(ok)),
        (Hex.bytes(selectCC), Hex.bytes(ok)),
        (Hex.bytes(readCC), Hex.bytes("0011 30 00FF 00FF 0608 E104 0000 0022 9000")),
        (Hex.bytes("00 B0 00 0F 02"), Hex.bytes("00 00 9000")),
        (Hex.bytes(selectNDEF), Hex.bytes(ok)),
        (Hex.bytes("00 B0 00 00 22"), file + [0x90, 0x00]),
    ])
    #expect(try await TagReader().read(atr: Fixtures.phoneATR, channel: channel).content == .message(message))
    #expect(channel.isFinished)
}

@Test func nlenZeroIsEmpty() async throws {
    let channel = ScriptedChannel(hex: [
        ("FF CA 00 00 00", "90 00"), (selectV2, ok), (selectCC, ok), (readCC, standardCC(mle: 0xFF, maxSize: 0x40)),
        (selectNDEF, ok), ("00 B0 00 00 40", String(repeating: "00", count: 0x40) + ok),
    ])
    #expect(try await TagReader().read(atr: Fixtures.phoneATR, channel: channel).content == .empty)
    #expect(channel.isFinished)
}

@Test(arguments: ["6A 82", "6D 00", "6F 00"])
func noApplicationIsAbsentISO14443Part4(status: String) async throws {
    let channel = ScriptedChannel(hex: [
        ("FF CA 00 00 00", "01 02 03 04 90 00"), (selectV2, status), (selectV1, status),
    ])
    let reading = try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    #expect(reading == TagReading(uid: Hex.bytes("01020304"), technology: .iso14443Part4, content: .absent))
    #expect(channel.isFinished)
}

@Test(
    arguments: [
        (
            standardCC(mle: 0xFF, maxSize: 0x40), "01 00", NFCTagError.Code.malformedNDEFFile,
            "Type 4 NDEF file E104 at byte 0: NLEN 256 exceeds the file's maximum size 64 minus the 2-byte NLEN"
        ),
        (
            standardCC(mle: 0xFF, maxSize: 0x40, read: 0xFF), nil, .readAccessDenied,
            "Type 4 NDEF file E104: read access 0xFF forbids reading"
        ),
        (
            "000F 20 00FF 00FF 0506 E104 0800 0000 9000", nil, .malformedCapabilityContainer,
            "Type 4 CC file at byte 7: NDEF File Control TLV 0x05 length 6 is neither 04 06 nor 06 08"
        ),
        (
            "000F 40 00FF 00FF 0406 E104 0800 0000 9000", nil, .malformedCapabilityContainer,
            "Type 4 CC file at byte 2: mapping version 4.0 is not supported"
        ),
        (
            "000F 20 000E 00FF 0406 E104 0800 0000 9000", nil, .malformedCapabilityContainer,
            "Type 4 CC file at byte 3: MLe 14 is below the minimum 15"
        ),
        (
            "000F 20 00FF 00FF 0406 E104 0001 0000 9000", nil, .malformedCapabilityContainer,
            "Type 4 CC file at byte 11: NDEF file maximum size 1 cannot hold its 2-byte NLEN"
        ),
        (
            "000F 20 00FF 00FF 0406 E104 9000", nil, .malformedCapabilityContainer,
            "Type 4 CC file at byte 11: the file ends after 11 bytes, 15 expected"
        ),
        (
            "000F 30 00FF 00FF 0608 E104 0000 0800 00 9000", nil, .malformedCapabilityContainer,
            "Type 4 CC file at byte 0: CCLEN 15 is shorter than its NDEF File Control TLV"
        ),
        ("6A 82", nil, .unexpectedStatus, "READ BINARY offset 0 length 15 answered status 6A 82"),
    ] as [(String, String?, NFCTagError.Code, String)])
func malformedType4(cc: String, nlen: String?, code: NFCTagError.Code, text: String) async throws {
    var script: [(String, String)] = [("FF CA 00 00 00", "90 00"), (selectV2, ok), (selectCC, ok), (readCC, cc)]
    if let nlen { script += [(selectNDEF, ok), ("00 B0 00 00 40", nlen + String(repeating: "00", count: 62) + ok)] }
    let channel = ScriptedChannel(hex: script)
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    }
    #expect(error?.code == code)
    #expect(error?.description == text)
    #expect(channel.isFinished)
}

@Test func failedCCSelectNamesTheCommand() async throws {
    let channel = ScriptedChannel(hex: [("FF CA 00 00 00", "90 00"), (selectV2, ok), (selectCC, "6A 82")])
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    }
    #expect(error?.description == "SELECT file E103 answered status 6A 82")
}

@Test(arguments: 0..<6)
func type4RemovalAtEveryCommandIsTagRemoved(index: Int) async throws {
    let channel = ScriptedChannel(hundredByteScript(), removalIndex: index)
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.phoneATR, channel: channel)
    }
    #expect(error?.code == .tagRemoved)
    #expect(error?.cause is ScriptedChannel.Removed)
    #expect(channel.sent.count == index + 1)
}
