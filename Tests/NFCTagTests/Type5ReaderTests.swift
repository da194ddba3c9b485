import NFCTag
import TestSupport
import Testing

/// Type 5 (ISO 15693) reads against scripted channels: exact command sequences for each reader form.
struct Type5ReaderTests {
    /// An ICODE SLIX2 ATR (standard `0B`, card name `00 14`).
    static let atr = Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77")
    /// `FF CA` as the reader answers it: least significant byte first.
    static let uidAnswer = Hex.bytes("1F 2D 3C 8A 50 01 04 E0 90 00")

    /// `FF B0 <hi> <lo> <le>`.
    static func read(_ block: Int, _ le: Int = 4) -> [UInt8] {
        [0xFF, 0xB0, UInt8(block >> 8), UInt8(block & 0xFF), UInt8(le)]
    }

    /// A memory image: CC, `03 <len> <message> FE`, zeros up to `size`.
    static func image(cc: [UInt8], message: [UInt8], size: Int = 320) -> [UInt8] {
        let header: [UInt8] =
            message.count < 255
            ? [0x03, UInt8(message.count)] : [0x03, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let bytes = cc + header + message + [0xFE]
        return bytes + [UInt8](repeating: 0, count: max(0, size - bytes.count))
    }

    /// The script reading `blocks` of `memory` one per command, Le = block size.
    static func script(_ memory: [UInt8], blocks: [Int], size: Int = 4) -> [([UInt8], [UInt8])] {
        blocks.map { (read($0, size), Array(memory[($0 * size)..<(($0 + 1) * size)]) + [0x90, 0x00]) }
    }

    @Test func fortyByteMessageOnASLIX2ReadsTheCCThenOnlyTheBlocksTheTLVCovers() async throws {
        let message = Fixtures.uriMessage(length: 40)
        let memory = Self.image(cc: Hex.bytes("E1 40 28 01"), message: message)
        // T at byte 4, L at 5, the value at 6..<46: blocks 0 through 11, the terminator (byte 46) not read.
        let channel = ScriptedChannel([(Fixtures.getUID, Self.uidAnswer)] + Self.script(memory, blocks: Array(0...11)))
        let reading = try await TagReader().read(atr: Self.atr, channel: channel)
        #expect(
            reading
                == TagReading(uid: Hex.bytes("E0 04 01 50 8A 3C 2D 1F"), technology: .type5, content: .message(message))
        )
        #expect(channel.isFinished)
    }

    @Test func thirtyEightByteMessageTakesElevenReads() async throws {
        // The layout's minimum for a 40-byte TLV: block 0 (the CC) and blocks 1-10.
        let message = Fixtures.uriMessage(length: 38)
        let memory = Self.image(cc: Hex.bytes("E1 40 28 01"), message: message)
        let channel = ScriptedChannel(Self.script(memory, blocks: Array(0...10)))
        #expect(try await Type5Reader().read(from: channel) == .message(message))
        #expect(channel.isFinished)
    }

    @Test func notNDEFFormattedIsAUIDOnlyTagAfterOneRead() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF CA 00 00 00", "1F 2D 3C 8A 50 01 04 E0 90 00"),
            ("FF B0 00 00 04", "00 00 00 00 90 00"),
        ])
        let reading = try await TagReader().read(atr: Self.atr, channel: channel)
        #expect(reading == TagReading(uid: Hex.bytes("E0 04 01 50 8A 3C 2D 1F"), technology: .type5, content: .absent))
        #expect(channel.isFinished)
    }

    @Test func aTLV01IsSkippedByItsLengthReservingNothing() async throws {
        // Type 5 has no Lock Control TLV: `01 03 A0 0C 34` is a 3-byte TLV like any other (on Type 2 it would
        // reserve bytes).
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 0E 01 90 00"),
            ("FF B0 00 01 04", "01 03 A0 0C 90 00"),
            ("FF B0 00 02 04", "34 03 03 D0 90 00"),
            ("FF B0 00 03 04", "00 00 FE 00 90 00"),
        ])
        #expect(try await Type5Reader().read(from: channel) == .message(Hex.bytes("D0 00 00")))
        #expect(
            try Type5TLV.ndefMessage(inDataArea: Hex.bytes("01 03 A0 0C 34 03 03 D0 00 00 FE"), ccSize: 4)
                == .message(Hex.bytes("D0 00 00")))
    }

    @Test func emptyNDEFTLV() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 0E 01 90 00"),
            ("FF B0 00 01 04", "03 00 FE 00 90 00"),
        ])
        #expect(try await Type5Reader().read(from: channel) == .empty)
    }

    @Test func sixCxxIsAskedAgainWithThatLeAndEightByteBlocksFollow() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "6C 08"),
            ("FF B0 00 00 08", "E1 40 28 01 03 05 D1 01 90 00"),
            ("FF B0 00 01 08", "01 55 00 61 FE 00 00 00 90 00"),
        ])
        #expect(try await Type5Reader().read(from: channel) == .message(Hex.bytes("D1 01 01 55 00")))
        #expect(channel.isFinished)
    }

    @Test func eightBytesAnsweredToLe4MakeTheBlockSize8() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 03 03 D0 00 90 00"),
            ("FF B0 00 01 08", "00 FE 00 00 00 00 00 00 90 00"),
        ])
        #expect(try await Type5Reader().read(from: channel) == .message(Hex.bytes("D0 00 00")))
        #expect(channel.isFinished)
    }

    @Test(arguments: ["67 00", "6A 81", "6B 00"])
    func refusedBlockNumberFormTakesTheBlockInP1AndKeepsIt(status: String) async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 28 01 90 00"),
            ("FF B0 00 01 04", status),
            ("FF B0 01 00 04", "03 05 D1 01 90 00"),
            ("FF B0 02 00 04", "01 55 00 61 90 00"),
        ])
        #expect(try await Type5Reader().read(from: channel) == .message(Hex.bytes("D1 01 01 55 00")))
        #expect(channel.isFinished)
    }

    @Test func eightByteCCOnFourByteBlocksReadsBlock1AndTheTLVsStartAtByte8() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E2 40 00 01 90 00"),
            ("FF B0 00 01 04", "00 00 03 FF 90 00"),
            ("FF B0 00 02 04", "03 03 D0 00 90 00"),
            ("FF B0 00 03 04", "00 FE 00 00 90 00"),
        ])
        #expect(try await Type5Reader().read(from: channel) == .message(Hex.bytes("D0 00 00")))
        #expect(channel.isFinished)
    }

    @Test func twoByteBlockNumbersPastBlock255OnAnE2Tag() async throws {
        let message = Fixtures.uriMessage(length: 1100)
        let cc = Hex.bytes("E2 40 00 01 00 00 03 FF")
        let memory = Self.image(cc: cc, message: message, size: 8192)
        // Bytes 0..<(8 + 4 + 1100): blocks 0 through 277.
        let channel = ScriptedChannel(Self.script(memory, blocks: Array(0...277)))
        #expect(try await Type5Reader().read(from: channel) == .message(message))
        #expect(channel.sent.last == Hex.bytes("FF B0 01 15 04"))
    }

    @Test func mlenIsClampedTo256BlocksOnAnE1Tag() async throws {
        // MLEN FF (2040 bytes) on an E1 tag: only 256 blocks are addressable, 1020 bytes after the CC.
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 FF 01 90 00"),
            ("FF B0 00 01 04", "03 FF 04 00 90 00"),
        ])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Reader().read(from: channel) }
        #expect(error?.code == .malformedTLV)
        #expect(error?.offset == 4)
        #expect(error?.message == "Type 5 TLV at byte 4: NDEF length 1024 runs past the data area (1020 bytes)")
    }

    @Test(arguments: [
        ("E1 80 0E 01", NFCTagError.Code.malformedCapabilityContainer, 1),
        ("E1 44 0E 01", .readAccessDenied, 1),
    ])
    func unusableCapabilityContainers(cc: String, code: NFCTagError.Code, offset: Int) async throws {
        let channel = ScriptedChannel(hex: [("FF B0 00 00 04", cc + " 90 00")])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Reader().read(from: channel) }
        #expect(error?.code == code)
        #expect(error?.offset == offset)
    }

    @Test func aRefusedBlockNamesTheCommandBlockAndByte() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 0E 01 90 00"),
            ("FF B0 00 01 04", "03 20 D1 01 90 00"),
            ("FF B0 00 02 04", "62 82"),
        ])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Reader().read(from: channel) }
        #expect(error?.code == .unexpectedStatus)
        #expect(error?.message == "Type 5 READ (FF B0 00 02 04) of block 2 at byte 8 answered status 62 82")
    }

    @Test func aBlockOfTheWrongLengthIsRefused() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF B0 00 00 04", "E1 40 0E 01 90 00"),
            ("FF B0 00 01 04", "03 20 90 00"),
        ])
        let error = await #expect(throws: NFCTagError.self) { try await Type5Reader().read(from: channel) }
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.offset == 4)
    }

    @Test(arguments: 0..<12)
    func aTagRemovedAtAnyCommandGivesTagRemovedAndNoMessage(index: Int) async throws {
        let message = Fixtures.uriMessage(length: 40)
        let memory = Self.image(cc: Hex.bytes("E1 40 28 01"), message: message)
        let channel = ScriptedChannel(Self.script(memory, blocks: Array(0...11)), removalIndex: index)
        let error = await #expect(throws: NFCTagError.self) { try await Type5Reader().read(from: channel) }
        #expect(error?.code == .tagRemoved)
    }
}
