import NFCTag
import TestSupport
import Testing

/// MIFARE Classic reads against scripted channels: the exact command sequences (docs/tags.md, "MIFARE Classic").
struct MifareClassicReaderTests {
    static let atr1K = Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A")
    static let uid = ("FF CA 00 00 00", "5A 3C 91 0E 90 00")
    static let loadMADKey = "FF 82 00 00 06 A0 A1 A2 A3 A4 A5"
    static let loadNDEFKey = "FF 82 00 01 06 D3 F7 D3 F7 D3 F7"
    static let authMAD = "FF 86 00 00 05 01 00 03 60 00"
    static let mad1Block1 = "14 01" + String(repeating: " 03 E1", count: 7) + " 90 00"
    static let mad1Block2 = String(repeating: "03 E1 ", count: 8) + "90 00"
    static let ok = "90 00"

    /// `03 28 <40-byte URI message> FE`, cut into the blocks 4, 5, 6 answers.
    static func blocks(_ stream: [UInt8]) -> [String] {
        let padded = stream + [UInt8](repeating: 0, count: (16 - stream.count % 16) % 16)
        return stride(from: 0, to: padded.count, by: 16).map { Hex.string(Array(padded[$0..<($0 + 16)])) + "9000" }
    }

    static func uriScript(_ message: [UInt8]) -> [(String, String)] {
        let blocks = blocks([0x03, UInt8(message.count)] + message + [0xFE])
        return [
            uid, (loadMADKey, ok), (authMAD, ok), ("FF B0 00 01 10", mad1Block1), ("FF B0 00 02 10", mad1Block2),
            (loadNDEFKey, ok), ("FF 86 00 00 05 01 00 04 60 01", ok), ("FF B0 00 04 10", blocks[0]),
            ("FF B0 00 05 10", blocks[1]), ("FF B0 00 06 10", blocks[2]),
        ]
    }

    @Test func fortyByteURIOnA1KTakesNineCommandsAfterTheUID() async throws {
        let message = Fixtures.uriMessage(length: 40)
        let channel = ScriptedChannel(hex: Self.uriScript(message))
        let reading = try await TagReader().read(atr: Self.atr1K, channel: channel)
        #expect(
            reading == TagReading(uid: Hex.bytes("5A3C910E"), technology: .mifareClassic, content: .message(message)))
        #expect(channel.isFinished)
        #expect(channel.sent.count == 1 + 9)
    }

    @Test func factoryCardIsATagWithoutNDEFAfterOneRefusedAuthentication() async throws {
        let channel = ScriptedChannel(hex: [Self.uid, (Self.loadMADKey, Self.ok), (Self.authMAD, "63 00")])
        let reading = try await TagReader().read(atr: Self.atr1K, channel: channel)
        #expect(reading == TagReading(uid: Hex.bytes("5A3C910E"), technology: .mifareClassic, content: .absent))
        #expect(channel.isFinished)
    }

    @Test(arguments: ["63 00", "69 82"])
    func aReaderRefusingLoadKeyLeavesAUIDOnlyTag(status: String) async throws {
        let channel = ScriptedChannel(hex: [Self.uid, (Self.loadMADKey, status)])
        let reading = try await TagReader().read(atr: Self.atr1K, channel: channel)
        #expect(reading.content == .absent)
        #expect(channel.isFinished)
    }

    @Test(
        arguments: [
            (String(repeating: "00 ", count: 16) + "90 00", String(repeating: "00 ", count: 16) + "90 00"),
            ("15 01" + String(repeating: " 03 E1", count: 7) + " 90 00", mad1Block2),
            (
                "D5 01" + String(repeating: " 00 00", count: 7) + " 90 00",
                String(repeating: "00 00 ", count: 8) + "90 00"
            ),
        ])
    func aMADWithAWrongCRCOrNoNDEFSectorIsNotNDEF(block1: String, block2: String) async throws {
        // The third row is a valid MAD (CRC D5 over info 01 and free sectors) with no NDEF sector.
        #expect(MAD.crc(Hex.bytes("01" + String(repeating: "0000", count: 15))) == 0xD5)
        let channel = ScriptedChannel(hex: [
            Self.uid, (Self.loadMADKey, Self.ok), (Self.authMAD, Self.ok), ("FF B0 00 01 10", block1),
            ("FF B0 00 02 10", block2),
        ])
        let reading = try await TagReader().read(atr: Self.atr1K, channel: channel)
        #expect(reading.content == .absent)
        #expect(channel.isFinished)
    }

    @Test func aReaderWithoutFF86IsAskedWithTheObsoleteFF88() async throws {
        let channel = ScriptedChannel(hex: [
            Self.uid, (Self.loadMADKey, Self.ok), (Self.authMAD, "6D 00"), ("FF 88 00 03 60 00", Self.ok),
            ("FF B0 00 01 10", Self.mad1Block1), ("FF B0 00 02 10", Self.mad1Block2), (Self.loadNDEFKey, Self.ok),
            ("FF 88 00 04 60 01", Self.ok), ("FF B0 00 04 10", "03 00 FE 00 00 00 00 00 00 00 00 00 00 00 00 00 90 00"),
        ])
        let reading = try await TagReader().read(atr: Self.atr1K, channel: channel)
        #expect(reading.content == .empty)
        #expect(channel.isFinished)
    }

    @Test func miniIgnoresAIDsPastItsFifthSector() async throws {
        let mad = ClassicTrailer.mad1(for: .mini).encoded
        let channel = ScriptedChannel(hex: [
            Self.uid, (Self.loadMADKey, Self.ok), (Self.authMAD, Self.ok),
            ("FF B0 00 01 10", Hex.string(Array(mad[0..<16])) + "9000"),
            ("FF B0 00 02 10", Hex.string(Array(mad[16..<32])) + "9000"), (Self.loadNDEFKey, Self.ok),
            ("FF 86 00 00 05 01 00 04 60 01", Self.ok),
            ("FF B0 00 04 10", "00 00 03 03 D0 00 00 FE 00 00 00 00 00 00 00 00 90 00"),
        ])
        let reading = try await TagReader().read(
            atr: Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D"), channel: channel)
        #expect(reading.content == .message(Hex.bytes("D0 00 00")))
        #expect(channel.isFinished)
    }

    @Test func anNDEFSectorRefusingTheNDEFKeyIsAnErrorNamingTheSector() async throws {
        let channel = ScriptedChannel(
            hex: Array(Self.uriScript(Fixtures.uriMessage(length: 40)).prefix(6)) + [
                ("FF 86 00 00 05 01 00 04 60 01", "63 00")
            ])
        let error = await #expect(throws: NFCTagError.self) {
            try await TagReader().read(atr: Self.atr1K, channel: channel)
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.offset == 64)
        #expect(
            error?.description
                == "MIFARE Classic 1K sector 1 (block 4, byte 64) refused the NDEF key A D3F7D3F7D3F7, though the MAD marks it NDEF"
        )
    }

    @Test(
        arguments: [
            (
                "03 FF 0F 00 00 00 00 00 00 00 00 00 00 00 00 00 90 00", 64,
                "MIFARE Classic 1K TLV at byte 64 (block 4, NDEF area byte 0): NDEF length 3840 runs past the data area (720 bytes)"
            ),
            (
                "00 00 FD FF 10 00 00 00 00 00 00 00 00 00 00 00 90 00", 66,
                "MIFARE Classic 1K TLV at byte 66 (block 4, NDEF area byte 2): proprietary TLV length 4096 runs past the data area (720 bytes)"
            ),
        ] as [(String, Int, String)])
    func malformedTLVsNameTheCardByteAndBlock(block4: String, offset: Int, text: String) async throws {
        let channel = ScriptedChannel(
            hex: Array(Self.uriScript(Fixtures.uriMessage(length: 40)).prefix(7)) + [("FF B0 00 04 10", block4)])
        let error = await #expect(throws: NFCTagError.self) {
            try await TagReader().read(atr: Self.atr1K, channel: channel)
        }
        #expect(error?.code == .malformedTLV)
        #expect(error?.offset == offset)
        #expect(error?.description == text)
    }

    @Test func aRefusedReadInAnNDEFSectorNamesTheBlockAndByte() async throws {
        let channel = ScriptedChannel(
            hex: Array(Self.uriScript(Fixtures.uriMessage(length: 40)).prefix(7)) + [
                ("FF B0 00 04 10", "69 82")
            ])
        let error = await #expect(throws: NFCTagError.self) {
            try await TagReader().read(atr: Self.atr1K, channel: channel)
        }
        #expect(error?.code == .unexpectedStatus)
        #expect(error?.description == "MIFARE Classic 1K READ block 4 (byte 64) answered status 69 82")
    }

    @Test(arguments: 0..<10)
    func aTagRemovedAtAnyCommandIsTagRemovedNamingIt(index: Int) async throws {
        let names = [
            "GET UID", "MIFARE Classic 1K LOAD KEY slot 0",
            "MIFARE Classic 1K AUTHENTICATE block 3 with key A (slot 0)",
            "MIFARE Classic 1K READ block 1", "MIFARE Classic 1K READ block 2", "MIFARE Classic 1K LOAD KEY slot 1",
            "MIFARE Classic 1K AUTHENTICATE block 4 with key A (slot 1)", "MIFARE Classic 1K READ block 4",
            "MIFARE Classic 1K READ block 5", "MIFARE Classic 1K READ block 6",
        ]
        let channel = ScriptedChannel(hex: Self.uriScript(Fixtures.uriMessage(length: 40)), removalIndex: index)
        let error = await #expect(throws: NFCTagError.self) {
            try await TagReader().read(atr: Self.atr1K, channel: channel)
        }
        #expect(error?.code == .tagRemoved)
        #expect(error?.description == "tag removed during \(names[index]) (scripted removal at command \(index))")
    }

    @Test func aCardNameThatIsNotAClassicIsRefused() async throws {
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicReader().read(from: ScriptedChannel([]), card: .mifareUltralight)
        }
        #expect(error?.code == .unsupportedCard)
    }
}
