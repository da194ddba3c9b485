import NFCTag
import TestSupport
import Testing

/// Writing Type 2 tags through `TagWriter`: the exact commands, the refusals, and a tag ripped away at every
/// command.
struct Type2WriterTests {
    /// A tag memory with `dataArea` in an NTAG213-sized data area (CC `E1 10 12 00`), 16 bytes of lock and
    /// configuration pages after it.
    static func ntag213(_ dataArea: [UInt8], access: UInt8 = 0x00, staticLock: [UInt8] = [0, 0]) -> [UInt8] {
        var image = Type2Memory.image(cc: [0xE1, 0x10, 0x12, access], dataArea: dataArea)
        image[10] = staticLock[0]
        image[11] = staticLock[1]
        return image
    }

    /// The data area of a factory NTAG213 holding `message`.
    static func factory(_ message: [UInt8]) -> [UInt8] { Fixtures.ntag213DataArea(message: message) }

    static func write(_ message: [UInt8], to tag: Type2TagFake, lock: Bool = false) async throws -> TagWriteResult {
        try await TagWriter().write(message, atr: Fixtures.ntagATR, channel: tag, lock: lock)
    }

    static func page(_ page: Int, _ hex: String) -> [UInt8] {
        [0xFF, 0xD6, 0x00, UInt8(page), 0x04] + Hex.bytes(hex)
    }

    @Test func aFactoryNTAG213IsWrittenFromTheLastPageBackToTheLengthPage() async throws {
        let message = Fixtures.uriMessage(length: 40)
        let tag = Type2TagFake(memory: Self.ntag213(Self.factory([])))
        let result = try await Self.write(message, to: tag)
        // The TLV stream 03 28 <40 bytes> FE runs from data-area byte 5 to 47: pages 5 to 15. The length page 5
        // is written last (the old length is 0 already: no guard write).
        let stream = [0x03, 0x28] + message + [0xFE]
        let area = [0x01, 0x03, 0xA0, 0x0C, 0x34] + stream
        let expectedWrites = (6...15).map { Self.page($0, Hex.string(Array(area[($0 - 4) * 4..<($0 - 3) * 4]))) }
        #expect(tag.writes == expectedWrites + [Self.page(5, "34 03 28 " + Hex.string([message[0]]))])
        #expect(
            tag.sent
                == [Fixtures.getUID, Fixtures.readPage(2)] + expectedWrites
                + [Self.page(5, "34 03 28 " + Hex.string([message[0]]))]
                + [Fixtures.getUID] + [3, 7, 11, 15].map { Fixtures.readPage($0) })
        #expect(Array(tag.memory[16..<(16 + area.count)]) == area)
        #expect(
            result
                == TagWriteResult(
                    uid: Hex.bytes("04A1B2C3D4E580"), technology: .type2, bytesWritten: 40, capacity: 137,
                    commands: 18, isLocked: false))
    }

    @Test func anOldMessageIsHiddenFirstByALengthOfZero() async throws {
        let old = Fixtures.uriMessage(length: 30)
        let new = Fixtures.uriMessage(length: 17)
        let tag = Type2TagFake(memory: Self.ntag213([0x03, 0x1E] + old + [0xFE]))
        _ = try await Self.write(new, to: tag)
        // NDEF TLV at byte 0, length at byte 1 (page 4): guard 03 00 …, then pages 5-8, then page 4 for real.
        let stream = [0x03, 0x11] + new + [0xFE]
        #expect(tag.writes.first == Self.page(4, "03 00 " + Hex.string(Array(new[0..<2]))))
        #expect(tag.writes.last == Self.page(4, "03 11 " + Hex.string(Array(new[0..<2]))))
        #expect(tag.writes.count == 6)
        #expect(Array(tag.memory[16..<(16 + stream.count)]) == stream)
    }

    @Test func rewritingTheSameMessageStillHidesItFirst() async throws {
        let message = Fixtures.uriMessage(length: 20)
        let tag = Type2TagFake(memory: Self.ntag213(Self.factory(message)))
        _ = try await Self.write(message, to: tag)
        // Page 5 holds the length: guard first, commit last.
        #expect(tag.writes.first?[5..<9] == [0x34, 0x03, 0x00, message[0]][...])
        #expect(tag.writes.last?[5..<9] == [0x34, 0x03, 0x14, message[0]][...])
        #expect(try Type2TLV.ndefMessage(inDataArea: Array(tag.memory[16..<160])) == .message(message))
    }

    /// A blank data area of NULL TLVs: the NDEF TLV's place becomes a terminator first, so the walk never runs
    /// into half-written bytes.
    @Test func aDataAreaOfNullTLVsGetsATerminatorFirst() async throws {
        let message = Fixtures.uriMessage(length: 20)
        let tag = Type2TagFake(memory: Self.ntag213([]))
        _ = try await Self.write(message, to: tag)
        #expect(tag.writes.first == Self.page(4, "FE 14 " + Hex.string(Array(message[0..<2]))))
        #expect(tag.writes.last == Self.page(4, "03 14 " + Hex.string(Array(message[0..<2]))))
    }

    @Test func aThreeByteLengthIsUsedFrom255Bytes() async throws {
        let message = Fixtures.uriMessage(length: 300)
        var image = Type2Memory.image(cc: Hex.bytes("E1 10 3E 00"), dataArea: [0x03, 0x00, 0xFE])
        image += [UInt8](repeating: 0, count: 16)
        let tag = Type2TagFake(memory: image)
        let result = try await Self.write(message, to: tag)
        #expect(Array(tag.memory[16..<20]) == [0x03, 0xFF, 0x01, 0x2C])
        #expect(result.capacity == 492)
        #expect(try Type2TLV.ndefMessage(inDataArea: Array(tag.memory[16..<(16 + 496)])) == .message(message))
    }

    /// Refusals: one sentence, and not a single write command sent.
    @Test(arguments: [
        (
            Type2WriterTests.ntag213(Type2WriterTests.factory([]), access: 0x0F), 20,
            "Type 2 capability container at byte 15: access 0x0F makes the tag read-only"
        ),
        (
            Type2WriterTests.ntag213(Type2WriterTests.factory([]), staticLock: [0x10, 0x00]), 20,
            "Type 2 static lock bytes at byte 10 are 1000: pages of the tag are locked"
        ),
        (
            Type2WriterTests.ntag213(Type2WriterTests.factory([])), 138,
            "the message is 138 bytes; this Type 2 tag holds at most 137 bytes"
        ),
        (
            Type2Memory.image(cc: Hex.bytes("00 00 00 00"), dataArea: []), 20,
            "Type 2 capability container at byte 12 is 00000000, not E1…: the tag is not NDEF formatted"
        ),
        (
            Type2WriterTests.ntag213([0x01, 0x02, 0xA0, 0x0C]), 20,
            "Type 2 TLV at byte 16: Lock Control length is 2, 3 expected"
        ),
        (
            Type2WriterTests.ntag213(Hex.bytes("FD FF 00 8B") + [UInt8](repeating: 0x11, count: 139)), 20,
            "Type 2 data area: 1 byte left after its TLVs at byte 159, too few for even an empty NDEF message"
        ),
    ])
    func refusalsLeaveTheTagUntouched(memory: [UInt8], length: Int, sentence: String) async throws {
        let tag = Type2TagFake(memory: memory)
        let error = try await #require(throws: NFCTagError.self) {
            try await Self.write(Fixtures.uriMessage(length: length), to: tag)
        }
        #expect(error.description == sentence)
        #expect(tag.writes.isEmpty)
        #expect(tag.memory == memory)
    }

    @Test func aSetDynamicLockBitRefusesAWriteThatReachesPage16() async throws {
        var memory = Self.ntag213(Self.factory([]))
        memory[160] = 0x01
        let tag = Type2TagFake(memory: memory)
        // 40 bytes stay below page 16: allowed.
        _ = try await Self.write(Fixtures.uriMessage(length: 40), to: tag)
        let error = try await #require(throws: NFCTagError.self) {
            try await Self.write(Fixtures.uriMessage(length: 60), to: tag)
        }
        #expect(error.code == .readOnly)
        #expect(error.description == "Type 2 dynamic lock byte at byte 160 is 0x01: pages of the tag are locked")
    }

    /// `--lock` on a factory NTAG213: CC access 0F, the 12 dynamic lock bits of its Lock Control TLV, the static
    /// lock bytes, each read back.
    @Test func lockingAnNTAG213SetsTheCCTheDynamicAndTheStaticLockBits() async throws {
        let message = Fixtures.uriMessage(length: 20)
        let tag = Type2TagFake(memory: Self.ntag213(Self.factory([])))
        let result = try await Self.write(message, to: tag, lock: true)
        #expect(result.isLocked)
        let lockCommands = Array(tag.writes.suffix(3))
        #expect(
            lockCommands == [
                Self.page(3, "E1 10 12 0F"), Self.page(40, "FF 0F 00 00"), Self.page(2, "00 00 FF FF"),
            ])
        #expect(Array(tag.memory[10..<16]) == Hex.bytes("FF FF E1 10 12 0F"))
        #expect(Array(tag.memory[160..<162]) == Hex.bytes("FF 0F"))
        let again = try await #require(throws: NFCTagError.self) { try await Self.write([], to: tag) }
        #expect(again.code == .readOnly)
    }

    /// The fault suite's unit layer: for every k, the tag leaves before command k. Whatever k, the data area
    /// then decodes to the old message, an empty one or the new one; and every k up to the last write leaves the
    /// tag with something the next write starts from.
    @Test(arguments: [
        (
            "factory, short to long", Type2WriterTests.factory(Fixtures.uriMessage(length: 17)),
            Fixtures.uriMessage(length: 100)
        ),
        (
            "factory, long to short", Type2WriterTests.factory(Fixtures.uriMessage(length: 100)),
            Fixtures.uriMessage(length: 18)
        ),
        ("empty to message", Type2WriterTests.factory([]), Fixtures.uriMessage(length: 60)),
        ("message to empty", Type2WriterTests.factory(Fixtures.uriMessage(length: 60)), []),
        ("blank NULLs", [UInt8](), Fixtures.uriMessage(length: 33)),
        (
            "Memory Control reserving bytes 40-47",
            Hex.bytes("02 03 38 08 04 03 11") + Fixtures.uriMessage(length: 17) + [0xFE],
            Fixtures.uriMessage(length: 70)
        ),
        ("terminator only", [0xFE], Fixtures.uriMessage(length: 17)),
    ])
    func aTagRippedAwayAtEveryCommandHoldsOldEmptyOrNew(name: String, dataArea: [UInt8], new: [UInt8]) async throws {
        var area = dataArea
        if name.hasPrefix("Memory Control") {
            area += [UInt8](repeating: 0, count: 40 - area.count) + [UInt8](repeating: 0xEE, count: 8)
        }
        let memory = Self.ntag213(area)
        let old = try Type2TLV.ndefMessage(inDataArea: Array(memory[16..<160]))
        let full = Type2TagFake(memory: memory)
        let result = try await Self.write(new, to: full)
        let newContent: TagReading.Content = new.isEmpty ? .empty : .message(new)
        for k in 0..<result.commands {
            let tag = Type2TagFake(memory: memory)
            await #expect(throws: NFCTagError.self) {
                _ = try await TagWriter().write(
                    new, atr: Fixtures.ntagATR, channel: RippingChannel(tag, failingAt: k))
            }
            let content = try Type2TLV.ndefMessage(inDataArea: Array(tag.memory[16..<160]))
            #expect(
                content == old || content == .empty || content == newContent,
                "\(name): ripped before command \(k) of \(result.commands), the tag holds \(content)")
            if name.hasPrefix("Memory Control") {
                #expect(Array(tag.memory[56..<64]) == [UInt8](repeating: 0xEE, count: 8))
            }
        }
    }
}
