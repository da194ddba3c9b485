import NFCTag
import TestSupport
import Testing

/// MIFARE Classic writes against scripted channels: the checks before writing, the exact commands, the refusals.
struct MifareClassicWriterTests {
    typealias R = MifareClassicReaderTests
    /// `https://a.b`: 8 bytes, so its TLV `03 08 … FE` fits one block.
    static let shortMessage = Hex.bytes("D1 01 04 55 04 61 2E 62")
    static let madTrailer = "00 00 00 00 00 00 78 77 88 C1 00 00 00 00 00 00 90 00"

    /// The commands that find a formatted 1K's MAD and sector 0 GPB, then load the NDEF key.
    static let prologue: [(String, String)] = [
        (R.loadMADKey, R.ok), (R.authMAD, R.ok), ("FF B0 00 01 10", R.mad1Block1), ("FF B0 00 02 10", R.mad1Block2),
        ("FF B0 00 03 10", madTrailer),
    ]

    @Test func aOneBlockMessageIsCheckedWrittenOnceAndReadBack() async throws {
        let block = "03 08 D1 01 04 55 04 61 2E 62 FE 00 00 00 00 00"
        let channel = ScriptedChannel(
            hex: Self.prologue + [
                (R.loadNDEFKey, R.ok), ("FF 86 00 00 05 01 00 04 60 01", R.ok),
                ("FF B0 00 07 10", "00 00 00 00 00 00 7F 07 88 40 00 00 00 00 00 00 90 00"),
                ("FF D6 00 04 10 " + block, R.ok), ("FF B0 00 04 10", block + " 90 00"),
            ])
        try await MifareClassicWriter(card: .mifareClassic1K).write(Self.shortMessage, to: channel)
        #expect(channel.isFinished)
    }

    @Test func aThreeBlockMessageWritesLengthZeroFirstAndTheLengthLast() async throws {
        let message = Fixtures.uriMessage(length: 40)
        let blocks = R.blocks([0x03, 40] + message + [0xFE]).map { String($0.dropLast(4)) }
        let emptied = "0300" + blocks[0].dropFirst(4)
        let channel = ScriptedChannel(
            hex: Self.prologue + [
                (R.loadNDEFKey, R.ok), ("FF 86 00 00 05 01 00 04 60 01", R.ok),
                ("FF B0 00 07 10", "00 00 00 00 00 00 7F 07 88 40 00 00 00 00 00 00 90 00"),
                ("FF D6 00 04 10" + emptied, R.ok), ("FF D6 00 05 10" + blocks[1], R.ok),
                ("FF D6 00 06 10" + blocks[2], R.ok), ("FF D6 00 04 10" + blocks[0], R.ok),
                ("FF B0 00 04 10", blocks[0] + "9000"), ("FF B0 00 05 10", blocks[1] + "9000"),
                ("FF B0 00 06 10", blocks[2] + "9000"),
            ])
        try await MifareClassicWriter(card: .mifareClassic1K).write(message, to: channel)
        #expect(channel.isFinished)
    }

    @Test(
        arguments: [
            (
                "00 00 00 00 00 00 07 8F 0F 43 00 00 00 00 00 00 90 00", 118,
                "MIFARE Classic 1K sector 1 (trailer block 7, byte 112) is read-only: access bits 07 8F 0F do not let key A write its data blocks"
            ),
            (
                "00 00 00 00 00 00 7F 07 88 43 00 00 00 00 00 00 90 00", 121,
                "MIFARE Classic 1K sector 1 (trailer block 7, byte 112) is read-only: its GPB 0x43 has write access bits 11"
            ),
            (
                "00 00 00 00 00 00 78 77 88 40 00 00 00 00 00 00 90 00", 118,
                "MIFARE Classic 1K sector 1 (trailer block 7, byte 112) is read-only: access bits 78 77 88 do not let key A write its data blocks"
            ),
            (
                "00 00 00 00 00 00 7F 07 89 40 00 00 00 00 00 00 90 00", 118,
                "MIFARE Classic 1K sector 1 (trailer block 7, byte 112) has inconsistent access bits 7F 07 89: the sector is blocked"
            ),
        ] as [(String, Int, String)])
    func aReadOnlySectorIsRefusedBeforeAnythingIsWritten(trailer: String, offset: Int, text: String) async throws {
        let channel = ScriptedChannel(
            hex: Self.prologue + [
                (R.loadNDEFKey, R.ok), ("FF 86 00 00 05 01 00 04 60 01", R.ok), ("FF B0 00 07 10", trailer),
            ])
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter(card: .mifareClassic1K).write(Self.shortMessage, to: channel)
        }
        #expect(error?.code == .readOnly)
        #expect(error?.offset == offset)
        #expect(error?.description == text)
        #expect(channel.isFinished)
    }

    @Test func aMessageTooLargeNamesBothSizesAndWritesNothing() async throws {
        let channel = ScriptedChannel(hex: Self.prologue)
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter(card: .mifareClassic1K).write(Fixtures.uriMessage(length: 716), to: channel)
        }
        #expect(error?.code == .insufficientCapacity)
        #expect(
            error?.description
                == "a 716-byte NDEF message does not fit this MIFARE Classic 1K: its 720-byte NDEF area holds a message of at most 715 bytes"
        )
        #expect(channel.isFinished)
    }

    @Test func lockingWithAnUnknownKeyBSaysSoAndChangesNothing() async throws {
        let channel = ScriptedChannel(
            hex: Self.prologue + [
                ("FF 82 00 01 06 FF FF FF FF FF FF", R.ok), ("FF 86 00 00 05 01 00 04 61 01", "63 00"),
            ])
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter(card: .mifareClassic1K).lock(channel)
        }
        #expect(error?.code == .authenticationFailed)
        #expect(
            error?.description
                == "making this MIFARE Classic 1K read-only needs its key B, and sector 1 refuses key B FFFFFFFFFFFF (the one NFC Tools and Android write when formatting): its key B is unknown, so it cannot be made read-only; nothing was changed"
        )
        #expect(channel.isFinished)
    }

    @Test func aCardWhoseSector0RefusesEveryKnownKeyIsNotFormatted() async throws {
        let channel = ScriptedChannel(hex: [
            (R.loadMADKey, R.ok), (R.authMAD, "63 00"), ("FF 82 00 00 06 FF FF FF FF FF FF", R.ok),
            (R.authMAD, "63 00"),
        ])
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter(card: .mifareClassic1K).write(Self.shortMessage, to: channel)
        }
        #expect(error?.code == .authenticationFailed)
        #expect(
            error?.description
                == "MIFARE Classic 1K sector 0 refuses the factory key A FFFFFFFFFFFF and the MAD key A0A1A2A3A4A5: its keys are unknown, so it cannot be formatted for NDEF; nothing was written"
        )
        #expect(channel.isFinished)
    }
}
