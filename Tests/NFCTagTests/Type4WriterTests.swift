import NFCTag
import TestSupport
import Testing

/// Writing Type 4 tags through `TagWriter`: the exact commands (NLEN 0, the message in MLc chunks, NLEN), the
/// refusals, and a tag ripped away at every command.
struct Type4WriterTests {
    /// A CC file: version 2.0, MLe 255, the given MLc, NDEF file E104 of `size` bytes, write access `write`.
    static func cc(mlc: Int = 0xFF, size: Int = 0x100, write: UInt8 = 0x00) -> [UInt8] {
        [0x00, 0x0F, 0x20, 0x00, 0xFF, UInt8(mlc >> 8), UInt8(mlc & 0xFF), 0x04, 0x06, 0xE1, 0x04]
            + [UInt8(size >> 8), UInt8(size & 0xFF), 0x00, write]
    }

    /// An extended (mapping 3.0) CC file with a 4-byte NLEN.
    static let extendedCC = Hex.bytes("00 11 30 00 FF 00 FF 06 08 E1 04 00 00 10 00 00 00")

    static func file(_ message: [UInt8], size: Int = 0x100, nlenSize: Int = 2) -> [UInt8] {
        let nlen = (0..<nlenSize).map { UInt8(truncatingIfNeeded: message.count >> (8 * (nlenSize - 1 - $0))) }
        return nlen + message + [UInt8](repeating: 0, count: size - nlenSize - message.count)
    }

    static let selects = [
        Hex.bytes("00 A4 04 00 07 D2 76 00 00 85 01 01 00"), Hex.bytes("00 A4 00 0C 02 E1 03"),
        Hex.bytes("00 B0 00 00 0F"), Hex.bytes("00 A4 00 0C 02 E1 04"),
    ]

    static func update(_ offset: Int, _ data: [UInt8]) -> [UInt8] {
        [0x00, 0xD6, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(data.count)] + data
    }

    @Test func nlenZeroThenChunksOfMLcThenNLEN() async throws {
        let message = Fixtures.uriMessage(length: 50)
        let card = Type4CardFake(ccFile: Self.cc(mlc: 20), ndefFile: Self.file(Fixtures.uriMessage(length: 30)))
        let result = try await TagWriter().write(message, atr: Fixtures.phoneATR, channel: card)
        let writes = [
            Self.update(0, [0, 0]), Self.update(2, Array(message[0..<20])), Self.update(22, Array(message[20..<40])),
            Self.update(42, Array(message[40..<50])), Self.update(0, [0, 50]),
        ]
        #expect(Array(card.sent.prefix(10)) == [Fixtures.getUID] + Self.selects + writes)
        #expect(Array(card.ndefFile.prefix(52)) == [0, 50] + message)
        #expect(result.technology == .type4)
        #expect(result.capacity == 254)
        #expect(result.bytesWritten == 50)
        #expect(result.commands == card.sent.count)
    }

    @Test func anEmptyMessageIsNLENZeroAlone() async throws {
        let card = Type4CardFake(ccFile: Self.cc(), ndefFile: Self.file(Fixtures.uriMessage(length: 30)))
        _ = try await TagWriter().write([], atr: Fixtures.phoneATR, channel: card)
        #expect(card.sent.filter { $0[1] == 0xD6 } == [Self.update(0, [0, 0])])
    }

    @Test func anExtendedFileHasAFourByteNLEN() async throws {
        let message = Fixtures.uriMessage(length: 40)
        let card = Type4CardFake(ccFile: Self.extendedCC, ndefFile: Self.file([], size: 0x1000, nlenSize: 4))
        _ = try await TagWriter().write(message, atr: Fixtures.phoneATR, channel: card)
        #expect(
            card.sent.filter { $0[1] == 0xD6 } == [
                Self.update(0, [0, 0, 0, 0]), Self.update(4, message), Self.update(0, [0, 0, 0, 40]),
            ])
    }

    @Test(arguments: [
        (cc(write: 0xFF), 20, "Type 4 NDEF file E104: write access 0xFF makes the tag read-only"),
        (cc(size: 0x40), 63, "the message is 63 bytes; this Type 4 tag's NDEF file E104 holds at most 62 bytes"),
    ])
    func refusalsSendNoUpdate(ccFile: [UInt8], length: Int, sentence: String) async throws {
        let file = Self.file([], size: Int(ccFile[11]) << 8 | Int(ccFile[12]))
        let card = Type4CardFake(ccFile: ccFile, ndefFile: file)
        let error = try await #require(throws: NFCTagError.self) {
            try await TagWriter().write(Fixtures.uriMessage(length: length), atr: Fixtures.phoneATR, channel: card)
        }
        #expect(error.description == sentence)
        #expect(!card.sent.contains { $0[1] == 0xD6 })
        #expect(card.ndefFile == file)
    }

    @Test func lockingIsRefusedBeforeAnyCommandButTheUID() async throws {
        let card = Type4CardFake(ccFile: Self.cc(), ndefFile: Self.file([]))
        let error = try await #require(throws: NFCTagError.self) {
            try await TagWriter().write(
                Fixtures.uriMessage(length: 20), atr: Fixtures.phoneATR, channel: card, lock: true)
        }
        #expect(error.code == .unsupportedCard)
        #expect(card.sent == [Fixtures.getUID])
    }

    @Test func aCardWithoutTheNDEFApplicationIsRefused() async throws {
        let channel = ScriptedChannel(hex: [
            ("FF CA 00 00 00", "01 02 03 04 90 00"),
            ("00 A4 04 00 07 D2 76 00 00 85 01 01 00", "6A 82"),
            ("00 A4 04 00 07 D2 76 00 00 85 01 00", "6A 82"),
        ])
        let error = try await #require(throws: NFCTagError.self) {
            try await TagWriter().write([], atr: Fixtures.phoneATR, channel: channel)
        }
        #expect(error.code == .unsupportedCard)
        #expect(channel.isFinished)
    }

    @Test(arguments: [(30, 100), (100, 30), (0, 60), (60, 0)])
    func aTagRippedAwayAtEveryCommandHoldsOldEmptyOrNew(oldLength: Int, newLength: Int) async throws {
        let old = oldLength == 0 ? [] : Fixtures.uriMessage(length: oldLength)
        let new = newLength == 0 ? [] : Fixtures.uriMessage(length: newLength)
        let file = Self.file(old)
        let full = Type4CardFake(ccFile: Self.cc(mlc: 32), ndefFile: file)
        let result = try await TagWriter().write(new, atr: Fixtures.phoneATR, channel: full)
        let contents: [TagReading.Content] = [old, [], new].map { $0.isEmpty ? .empty : .message($0) }
        for k in 0..<result.commands {
            let card = Type4CardFake(ccFile: Self.cc(mlc: 32), ndefFile: file)
            await #expect(throws: NFCTagError.self) {
                _ = try await TagWriter().write(
                    new, atr: Fixtures.phoneATR, channel: RippingChannel(card, failingAt: k))
            }
            let reading = try await TagReader().read(
                atr: Fixtures.phoneATR, channel: Type4CardFake(ccFile: Self.cc(mlc: 32), ndefFile: card.ndefFile))
            #expect(contents.contains(reading.content), "ripped before command \(k): \(reading.content)")
        }
    }
}
