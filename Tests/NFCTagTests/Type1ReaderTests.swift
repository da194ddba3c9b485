import NFCTag
import TestSupport
import Testing

/// Type 1 (Topaz) reads on the ACR122U's PN532 path against scripted channels.
struct Type1ReaderTests {
    static let atr = Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F")
    static let readAll = Hex.bytes("FF 00 00 00 04 D4 40 01 00")

    /// The READ ALL answer for bytes 0-119 of `memory` (padded with zeros).
    static func answer(_ memory: [UInt8], hr0: UInt8 = 0x12) -> [UInt8] {
        [0xD5, 0x41, 0x00, hr0, 0x4C] + (memory + [UInt8](repeating: 0, count: 120 - memory.count)) + [0x90, 0x00]
    }

    static let header = Hex.bytes("3A 81 5C 0D 00 00 00 00 E1 10 3F 00")

    @Test(arguments: [UInt8(0x11), 0x12])
    func oneReadAllGivesTheMessage(hr0: UInt8) async throws {
        let message = Fixtures.uriMessage(length: 40)
        let channel = ScriptedChannel([
            (Fixtures.getUID, Hex.bytes("3A 81 5C 0D 90 00")),
            (Self.readAll, Self.answer(Self.header + [0x03, 40] + message + [0xFE], hr0: hr0)),
        ])
        let reading = try await TagReader().read(atr: Self.atr, channel: channel)
        #expect(reading == TagReading(uid: Hex.bytes("3A815C0D"), technology: .type1, content: .message(message)))
        #expect(channel.isFinished)
    }

    @Test func lockAndMemoryControlTLVsBeforeTheNDEFTLVAreWalked() async throws {
        let channel = ScriptedChannel([
            (Self.readAll, Self.answer(Self.header + Hex.bytes("01 03 F2 30 33 02 03 F0 02 03 03 03 D0 00 00 FE")))
        ])
        #expect(try await Type1Reader().read(from: channel) == .message(Hex.bytes("D0 00 00")))
    }

    @Test(arguments: [
        ("00 00 00 00", TagReading.Content.absent),
        ("E1 10 3F 00 03 00 FE", .empty),
        ("E1 10 3F 00 FE", .absent),
    ])
    func notFormattedEmptyOrNoNDEF(cc: String, content: TagReading.Content) async throws {
        let channel = ScriptedChannel([(Self.readAll, Self.answer(Hex.bytes("3A 81 5C 0D 00 00 00 00 " + cc)))])
        #expect(try await Type1Reader().read(from: channel) == content)
    }

    @Test func aMessagePastByte103IsRefusedNamingTheByte() async throws {
        let channel = ScriptedChannel([
            (Self.readAll, Self.answer(Self.header + [0x03, 100] + [UInt8](repeating: 1, count: 100)))
        ])
        let error = await #expect(throws: NFCTagError.self) { try await Type1Reader().read(from: channel) }
        #expect(error?.code == .messageTooLarge)
        #expect(error?.offset == 104)
    }

    @Test(arguments: [
        ("D5 41 01 90 00", NFCTagError.Code.unexpectedResponse),
        ("63 00", .unexpectedStatus),
    ])
    func aRefusedReadAllNamesTheCommand(response: String, code: NFCTagError.Code) async throws {
        let channel = ScriptedChannel([(Self.readAll, Hex.bytes(response))])
        let error = await #expect(throws: NFCTagError.self) { try await Type1Reader().read(from: channel) }
        #expect(error?.code == code)
    }

    /// The dump parser (the oracle of `fuzz-type1-reader`) walks the TLVs as the read does: control TLVs reserve
    /// bytes at tag addresses counted from byte 0, errors name tag byte 12 + index.
    @Test(arguments: [
        ("01 03 F2 30 33 02 03 F0 02 03 03 03 D0 00 00 FE", TagReading.Content.message(Hex.bytes("D0 00 00"))),
        ("00 03 00 FE", .empty),
        ("FE 03 03 D0 00 00", .absent),
    ])
    func theDumpParserAgreesWithTheRead(dataArea: String, content: TagReading.Content) async throws {
        let bytes = Hex.bytes(dataArea) + [UInt8](repeating: 0, count: 92 - Hex.bytes(dataArea).count)
        #expect(try Type1TLV.ndefMessage(inDataArea: bytes) == content)
        let channel = ScriptedChannel([(Self.readAll, Self.answer(Self.header + bytes))])
        #expect(try await Type1Reader().read(from: channel) == content)
    }

    @Test func theDumpParserNamesTheTagByteOfAMalformedTLV() {
        let error = #expect(throws: NFCTagError.self) {
            try Type1TLV.ndefMessage(inDataArea: Hex.bytes("00 00 03 60") + [UInt8](repeating: 0, count: 88))
        }
        #expect(error?.code == .malformedTLV)
        #expect(error?.offset == 14)
    }

    @Test func malformedCapabilityContainer() async throws {
        let channel = ScriptedChannel([(Self.readAll, Self.answer(Hex.bytes("3A 81 5C 0D 00 00 00 00 E1 20 3F 00")))])
        let error = await #expect(throws: NFCTagError.self) { try await Type1Reader().read(from: channel) }
        #expect(error?.code == .malformedCapabilityContainer)
        #expect(error?.offset == 9)
    }
}
