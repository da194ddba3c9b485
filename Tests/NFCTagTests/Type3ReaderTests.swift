import NFCTag
import TestSupport
import Testing

/// Type 3 (FeliCa) reads and writes against scripted channels, on each reader path.
struct Type3ReaderTests {
    /// ACR122U: ISO 14443A-3 with ACS's card name `F0 11` (FeliCa 212K).
    static let acr122uATR = Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 11 00 00 00 00 8A")
    /// ACR1252U: standard `11`, card name `00 3B`.
    static let acr1252uATR = Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 00 3B 00 00 00 00 42")
    static let idm = Hex.bytes("01 27 00 5D 1A 2B 3C 4D")

    /// A Lite-S attribute block with Ln = `length` (Nbr 4, Nbw 1, Nmaxb 13, read/write).
    static func attribute(length: Int, rwFlag: UInt8 = 0x01, writeFlag: UInt8 = 0x00) -> [UInt8] {
        Type3AttributeBlock(
            maxReadBlocks: 4, maxWriteBlocks: 1, maxBlocks: 13, writeFlag: writeFlag, rwFlag: rwFlag, length: length
        ).bytes
    }

    /// The Read Without Encryption frame and the card's answer for `blocks` of `memory` (16 bytes a block).
    static func readFrame(_ blocks: Range<Int>, memory: [UInt8]) -> ([UInt8], [UInt8]) {
        let elements = blocks.flatMap { [0x80, UInt8($0)] as [UInt8] }
        let body = [0x06] + idm + [0x01, 0x0B, 0x00, UInt8(blocks.count)] + elements
        let data = Array(memory[(blocks.lowerBound * 16)..<(blocks.upperBound * 16)])
        let answer = [0x07] + idm + [0x00, 0x00, UInt8(blocks.count)] + data
        return ([UInt8(body.count + 1)] + body, [UInt8(answer.count + 1)] + answer)
    }

    /// Wraps a frame exchange in the ACR122U's PN532 form.
    static func pn532(_ exchange: ([UInt8], [UInt8])) -> ([UInt8], [UInt8]) {
        (
            [0xFF, 0x00, 0x00, 0x00, UInt8(exchange.0.count + 3), 0xD4, 0x40, 0x01] + exchange.0,
            [0xD5, 0x41, 0x00] + exchange.1 + [0x90, 0x00]
        )
    }

    /// Wraps a frame exchange in the ACR1252U's form.
    static func direct(_ exchange: ([UInt8], [UInt8])) -> ([UInt8], [UInt8]) {
        ([0xFF, 0x00, 0x00, 0x00, UInt8(exchange.0.count)] + exchange.0, exchange.1 + [0x90, 0x00])
    }

    @Test func liteSWithA40ByteMessageOnAnACR122UTakesThreeAPDUs() async throws {
        let message = Fixtures.uriMessage(length: 40)
        let memory = Self.attribute(length: 40) + message + [UInt8](repeating: 0, count: 8)
        let channel = ScriptedChannel(
            [
                (Fixtures.getUID, Self.idm + [0x90, 0x00]),
                (
                    Hex.bytes("FF 00 00 00 13 D4 40 01 10 06 01 27 00 5D 1A 2B 3C 4D 01 0B 00 01 80 00"),
                    Hex.bytes("D5 41 00 1D 07 01 27 00 5D 1A 2B 3C 4D 00 00 01")
                        + Hex.bytes("10 04 01 00 0D 00 00 00 00 00 01 00 00 28 00 4B 90 00")
                ),
                Self.pn532(Self.readFrame(1..<4, memory: memory)),
            ])
        let reading = try await TagReader().read(atr: Self.acr122uATR, channel: channel)
        #expect(reading == TagReading(uid: Self.idm, technology: .felica, content: .message(message)))
        #expect(channel.isFinished)
        #expect(Array(channel.sent[2].prefix(13)) == Hex.bytes("FF 00 00 00 17 D4 40 01 14 06 01 27 00"))
    }

    @Test func acr1252USendsTheBareFrameAfterFF000000() async throws {
        let message = Fixtures.uriMessage(length: 70)
        let memory = Self.attribute(length: 70) + message + [UInt8](repeating: 0, count: 10)
        // 70 bytes: blocks 1-5, Nbr 4 per command.
        let channel = ScriptedChannel([
            Self.direct(Self.readFrame(0..<1, memory: memory)),
            Self.direct(Self.readFrame(1..<5, memory: memory)),
            Self.direct(Self.readFrame(5..<6, memory: memory)),
        ])
        #expect(try await Type3Reader().read(from: channel, atr: Self.acr1252uATR, idm: Self.idm) == .message(message))
        #expect(channel.isFinished)
    }

    @Test func aReaderRefusingFF00IsAskedWithFF46() async throws {
        let message = Hex.bytes("D1 01 01 55 00")
        let attribute = Self.attribute(length: 5)
        let block1 = message + [UInt8](repeating: 0, count: 11)
        let channel = ScriptedChannel([
            (Hex.bytes("FF 00 00 00 10 10 06") + Self.idm + Hex.bytes("01 0B 00 01 80 00"), Hex.bytes("6A 81")),
            (Hex.bytes("FF 46 01 01 04 0B 00 00 00"), Self.idm + [0x00, 0x00, 0x01] + attribute + [0x90, 0x00]),
            (Hex.bytes("FF 46 01 01 04 0B 00 00 01"), Self.idm + [0x00, 0x00, 0x01] + block1 + [0x90, 0x00]),
        ])
        #expect(try await Type3Reader().read(from: channel, atr: Self.acr1252uATR, idm: Self.idm) == .message(message))
        #expect(channel.isFinished)
    }

    @Test func withoutAnIDmTheCardIsPolledForTheNDEFSystem() async throws {
        let pmm = Hex.bytes("00 F1 00 00 00 01 43 00")
        let memory = Self.attribute(length: 0) + [UInt8](repeating: 0, count: 16)
        let channel = ScriptedChannel([
            (
                Hex.bytes("FF 00 00 00 09 D4 40 01 06 00 12 FC 00 00"),
                Hex.bytes("D5 41 00 12 01") + Self.idm + pmm + [0x90, 0x00]
            ),
            Self.pn532(Self.readFrame(0..<1, memory: memory)),
        ])
        #expect(try await Type3Reader().read(from: channel, atr: Self.acr122uATR, idm: nil) == .empty)
        #expect(channel.isFinished)
    }

    @Test func aCardSilentForSystem12FCHasNoNDEF() async throws {
        let channel = ScriptedChannel(hex: [("FF 00 00 00 09 D4 40 01 06 00 12 FC 00 00", "D5 41 01 90 00")])
        #expect(try await Type3Reader().read(from: channel, atr: Self.acr122uATR, idm: nil) == .absent)
    }

    @Test(arguments: [
        (
            "10 04 01 00 0D 00 00 00 00 00 01 00 00 28 00 4C", 14,
            "checksum 00 4C does not match the sum of bytes 0-13 (00 4B)"
        ),
        (
            "20 04 01 00 0D 00 00 00 00 00 01 00 00 28 00 5B", 0,
            "version 2.0 is not supported (major version 1 expected)"
        ),
        (
            "10 04 01 00 0D 00 00 00 00 0F 01 00 00 28 00 5A", 9,
            "WriteF 0F: a write was interrupted, the message may be torn"
        ),
        (
            "10 04 01 00 0D 00 00 00 00 0A 01 00 00 00 00 2D", 9,
            "WriteF 0x0A is not 00 or 0F"
        ),
        (
            "10 04 01 00 0D 00 00 00 00 00 01 00 00 D1 00 F4", 11,
            "Ln 209 is larger than the NDEF area (Nmaxb 13 × 16 = 208 bytes)"
        ),
        ("10 00 01 00 0D 00 00 00 00 00 01 00 00 28 00 47", 1, "Nbr is 0: no block may be read"),
    ])
    func malformedAttributeBlocks(block: String, offset: Int, problem: String) throws {
        let error = #expect(throws: NFCTagError.self) { try Type3AttributeBlock(Hex.bytes(block)[...]) }
        #expect(error?.code == .malformedCapabilityContainer)
        #expect(error?.offset == offset)
        #expect(error?.message == "Type 3 attribute block at byte \(offset): \(problem)")
    }

    /// WriteF 0F with Ln 0 is the first step of a TagRouter write: no message yet, so it reads as empty.
    @Test func aWriteStartedButNotFinishedWithLengthZeroIsEmpty() throws {
        let block = try Type3AttributeBlock(Hex.bytes("10 04 01 00 0D 00 00 00 00 0F 01 00 00 00 00 32")[...])
        #expect(block.writeFlag == 0x0F && block.length == 0)
    }

    @Test func statusFlagsNameTheBlocksAndByte() async throws {
        let frame = Self.readFrame(0..<1, memory: [UInt8](repeating: 0, count: 16)).0
        let answer = [0x0C, 0x07] + Self.idm + [0x01, 0xA8]
        let channel = ScriptedChannel([Self.direct((frame, answer))])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Reader().read(from: channel, atr: Self.acr1252uATR, idm: Self.idm)
        }
        #expect(error?.code == .unexpectedStatus)
        #expect(
            error?.message
                == "FeliCa Read Without Encryption of block 0 at byte 0 answered SF1 01 SF2 A8 (block number out of range)"
        )
    }

    @Test func anAnswerForAnotherIDmIsRefused() async throws {
        let memory = Self.attribute(length: 0)
        var exchange = Self.readFrame(0..<1, memory: memory)
        exchange.1[9] ^= 0xFF
        let channel = ScriptedChannel([Self.direct(exchange)])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Reader().read(from: channel, atr: Self.acr1252uATR, idm: Self.idm)
        }
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.message.contains("at byte 2, not the card's 0127005D1A2B3C4D") == true)
    }

    @Test func aFrameWhoseLengthByteLiesIsRefused() async throws {
        var exchange = Self.readFrame(0..<1, memory: Self.attribute(length: 0))
        exchange.1[0] = 0x30
        let channel = ScriptedChannel([Self.direct(exchange)])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Reader().read(from: channel, atr: Self.acr1252uATR, idm: Self.idm)
        }
        #expect(error?.code == .unexpectedResponse)
    }

    @Test(arguments: 0..<3)
    func aCardRemovedAtAnyCommandGivesTagRemoved(index: Int) async throws {
        let message = Fixtures.uriMessage(length: 40)
        let memory = Self.attribute(length: 40) + message + [UInt8](repeating: 0, count: 8)
        let channel = ScriptedChannel(
            [
                (Fixtures.getUID, Self.idm + [0x90, 0x00]),
                Self.pn532(Self.readFrame(0..<1, memory: memory)),
                Self.pn532(Self.readFrame(1..<4, memory: memory)),
            ], removalIndex: index)
        let error = await #expect(throws: NFCTagError.self) {
            try await TagReader().read(atr: Self.acr122uATR, channel: channel)
        }
        #expect(error?.code == .tagRemoved)
    }

    // MARK: - Writing

    /// The Write Without Encryption frame for `blocks` carrying `data`, answered `SF1 SF2 = 00 00`.
    static func writeFrame(_ blocks: Range<Int>, data: [UInt8]) -> ([UInt8], [UInt8]) {
        let elements = blocks.flatMap { [0x80, UInt8($0)] as [UInt8] }
        let body = [0x08] + idm + [0x01, 0x09, 0x00, UInt8(blocks.count)] + elements + data
        return ([UInt8(body.count + 1)] + body, [0x0C, 0x09] + idm + [0x00, 0x00])
    }

    @Test func writeFlagsTheAttributeWritesOneBlockPerCommandThenLnAndReadsBack() async throws {
        let old = Self.attribute(length: 5)
        let message = Fixtures.uriMessage(length: 20)
        let padded = message + [UInt8](repeating: 0, count: 12)
        let after = Self.attribute(length: 20) + padded
        let channel = ScriptedChannel([
            (Fixtures.getUID, Self.idm + [0x90, 0x00]),
            Self.direct(Self.readFrame(0..<1, memory: old)),
            Self.direct(Self.writeFrame(0..<1, data: Self.attribute(length: 0, writeFlag: 0x0F))),
            Self.direct(Self.writeFrame(1..<2, data: Array(padded[0..<16]))),
            Self.direct(Self.writeFrame(2..<3, data: Array(padded[16..<32]))),
            Self.direct(Self.writeFrame(0..<1, data: Self.attribute(length: 20))),
            Self.direct(Self.readFrame(0..<1, memory: after)),
            Self.direct(Self.readFrame(1..<3, memory: after)),
        ])
        try await Type3Writer().write(message, to: channel, atr: Self.acr1252uATR)
        #expect(channel.isFinished)
    }

    @Test(arguments: [(UInt8(0x00), 1), (0x01, 0)])
    func readOnlyCardsAreRefusedUntouched(rwFlag: UInt8, nbw: Int) async throws {
        let attribute = Type3AttributeBlock(
            maxReadBlocks: 4, maxWriteBlocks: nbw, maxBlocks: 13, rwFlag: rwFlag, length: 0)
        let channel = ScriptedChannel([
            (Fixtures.getUID, Self.idm + [0x90, 0x00]),
            Self.direct(Self.readFrame(0..<1, memory: attribute.bytes)),
        ])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Writer().write([0xD0, 0x00, 0x00], to: channel, atr: Self.acr1252uATR)
        }
        #expect(error?.code == .readOnly)
        #expect(channel.isFinished)
    }

    @Test func tooLargeNamesBothSizes() async throws {
        let channel = ScriptedChannel([
            (Fixtures.getUID, Self.idm + [0x90, 0x00]),
            Self.direct(Self.readFrame(0..<1, memory: Self.attribute(length: 0))),
        ])
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Writer().write([UInt8](repeating: 0, count: 209), to: channel, atr: Self.acr1252uATR)
        }
        #expect(error?.code == .insufficientCapacity)
        #expect(error?.message == "Type 3 card: a 209-byte message does not fit the 208-byte NDEF area (Nmaxb 13 × 16)")
    }
}
