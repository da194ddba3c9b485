import NFCTag
import TestSupport
import Testing

/// Type 5 writes against scripted channels: the safe order (L = 0, data, L), refusals, read-back.
struct Type5WriterTests {
    static let message = Hex.bytes("D1 01 06 55 04 61 2E 62 2F 63")

    @Test func writesLZeroThenTheDataThenLThenReadsBack() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF D6 00 01 04 03 00 D1 01", "90 00"),
            ("FF D6 00 02 04 06 55 04 61", "90 00"),
            ("FF D6 00 03 04 2E 62 2F 63", "90 00"),
            ("FF D6 00 04 04 FE 00 00 00", "90 00"),
            ("FF D6 00 01 04 03 0A D1 01", "90 00"),
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF B0 00 01 04", "03 0A D1 01 90 00"),
            ("FF B0 00 02 04", "06 55 04 61 90 00"),
            ("FF B0 00 03 04", "2E 62 2F 63 90 00"),
        ])
        try await Type5Writer().write(Self.message, to: channel)
        #expect(channel.isFinished)
    }

    @Test func eightByteBlocksKeepTheCCInBlock0() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 AA BB CC DD 90 00"),
            ("FF D6 00 00 08 E1 40 28 01 03 00 D1 01", "90 00"),
            ("FF D6 00 01 08 06 55 04 61 2E 62 2F 63", "90 00"),
            ("FF D6 00 02 08 FE 00 00 00 00 00 00 00", "90 00"),
            ("FF D6 00 00 08 E1 40 28 01 03 0A D1 01", "90 00"),
            ("FF B0 00 00 04", "E1 40 28 01 03 0A D1 01 90 00"),
            ("FF B0 00 01 08", "06 55 04 61 2E 62 2F 63 90 00"),
        ])
        try await Type5Writer().write(Self.message, to: channel)
        #expect(channel.isFinished)
    }

    @Test func aLongMessageUsesTheThreeByteLengthZeroedAsFF0000First() async throws {
        let message = Fixtures.uriMessage(length: 300)
        let memory = Type5ReaderTests.image(cc: Hex.bytes("E1 40 28 01"), message: message)
        var script: [([UInt8], [UInt8])] = [(Type5ReaderTests.read(0), Array(memory[0..<4]) + [0x90, 0x00])]
        // TLV 03 FF 01 2C + 300 bytes + FE: bytes 4..<309, blocks 1-77.
        script.append((Hex.bytes("FF D6 00 01 04 03 FF 00 00"), Hex.bytes("90 00")))
        for block in 2...77 {
            script.append(
                ([0xFF, 0xD6, 0x00, UInt8(block), 0x04] + memory[(block * 4)..<(block * 4 + 4)], Hex.bytes("90 00")))
        }
        script.append((Hex.bytes("FF D6 00 01 04 03 FF 01 2C"), Hex.bytes("90 00")))
        script += Type5ReaderTests.script(memory, blocks: Array(0...76))
        let channel = ScriptedChannel(script)
        try await Type5Writer().write(message, to: channel)
        #expect(channel.isFinished)
    }

    @Test func readOnlyCCIsRefusedWithTheTagUntouched() async throws {
        let channel = ScriptedChannel(hex: [("FF B0 00 00 04", "E1 43 28 01 90 00")])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Writer().write(Self.message, to: channel) }
        #expect(error?.code == .readOnly)
        #expect(channel.isFinished)
    }

    /// Found by `fuzz-writers` (Fuzz/Corpus/fuzz-writers/regression-read-access-denied): a CC forbidding reads
    /// but not writes had the message written, then the read-back refused, reporting `readAccessDenied` for a
    /// tag that had been changed.
    @Test func aCCForbiddingReadsIsRefusedWithTheTagUntouched() async throws {
        let channel = ScriptedChannel(hex: [("FF B0 00 00 04", "E1 44 28 01 90 00")])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Writer().write(Self.message, to: channel) }
        #expect(error?.code == .readAccessDenied)
        #expect(error?.offset == 1)
        #expect(channel.isFinished)
    }

    @Test func tooLargeIsRefusedNamingBothSizes() async throws {
        let channel = ScriptedChannel(hex: [("FF B0 00 00 04", "E1 40 0E 01 90 00")])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type5Writer().write([UInt8](repeating: 0, count: 200), to: channel)
        }
        #expect(error?.code == .insufficientCapacity)
        #expect(
            error?.message
                == "Type 5 tag: a 200-byte message needs 202 bytes with its TLV header; the data area holds 108")
        #expect(channel.isFinished)
    }

    @Test func aRefusedFirstUpdateIsReadOnly() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF D6 00 01 04 03 00 D1 01", "69 82"),
        ])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Writer().write(Self.message, to: channel) }
        #expect(error?.code == .readOnly)
        #expect(error?.message.contains("UPDATE (FF D6 00 01 04) of block 1 at byte 4 answered status 69 82") == true)
    }

    @Test func notFormattedIsRefused() async throws {
        let channel = ScriptedChannel(hex: [("FF B0 00 00 04", "00 00 00 00 90 00")])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Writer().write(Self.message, to: channel) }
        #expect(error?.code == .malformedCapabilityContainer)
    }

    @Test func aDifferentReadBackFailsVerification() async throws {
        // The card acknowledges the last write of block 1 but keeps L = 0.
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF D6 00 01 04 03 00 D0 00", "90 00"),
            ("FF D6 00 02 04 00 FE 00 00", "90 00"),
            ("FF D6 00 01 04 03 03 D0 00", "90 00"),
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF B0 00 01 04", "03 00 D0 00 90 00"),
        ])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type5Writer().write(Hex.bytes("D0 00 00"), to: channel)
        }
        #expect(error?.code == .verificationFailed)
        #expect(channel.isFinished)
    }

    @Test func lockSetsTheCCWriteBits() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF D6 00 00 04 E1 43 28 01", "90 00"),
            ("FF B0 00 00 04", "E1 43 28 01 90 00"),
        ])
        try await Type5Writer().lock(channel)
        #expect(channel.isFinished)
    }
}
