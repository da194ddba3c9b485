import NDEF
import NFCTag
import Testing
import VirtualTag

import enum TestSupport.Hex

/// `MifareClassicReader` and `MifareClassicWriter` against the emulated card, driven directly: formatting,
/// rewriting, locking, refusals, and a card that leaves at every command of a write.
struct MifareClassicWriteTests {
    static func uri(_ length: Int) throws -> [UInt8] {
        // A URI record of `length` bytes in all: 4 header bytes (short record) or 7, prefix code 04.
        let header = length - 4 <= 255 ? 5 : 8
        let uri = "https://" + String(repeating: "a", count: length - header - 4) + ".com"
        let message = try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
        precondition(message.count == length, "\(message.count)")
        return message
    }

    static func read(_ card: MifareClassicCard) async throws -> (TagReading.Content, Int) {
        let channel = CardChannelAdapter(card)
        let content = try await MifareClassicReader().read(from: channel, card: cardName(card.model))
        return (content, channel.commands.count)
    }

    static func cardName(_ model: MifareClassicModel) -> ATRInfo.CardName {
        ATRInfo(atr: MifareClassicCard.factoryFresh(model: model).atr).storageCard!.name
    }

    @Test(arguments: [(MifareClassicModel.classic1K, 9), (.classic4K, 9), (.mini, 9)])
    func aFortyByteURIIsReadInNineCommands(model: MifareClassicModel, commands: Int) async throws {
        let message = try Self.uri(40)
        let (content, count) = try await Self.read(try MifareClassicCard(model: model, message: message))
        #expect(content == .message(message))
        #expect(count == commands)
    }

    @Test func aMessageReachingPastSector15On4KReadsMAD2() async throws {
        let message = try Self.uri(1000)
        let (content, count) = try await Self.read(try MifareClassicCard(model: .classic4K, message: message))
        #expect(content == .message(message))
        // MAD1 (4) + NDEF key + 15 sectors × (auth + 3 reads) + MAD2 (auth + 3 reads) + sectors 17-22 (the TLV
        // header and message are 1004 bytes = 63 blocks: 45 in sectors 1-15, 18 in sectors 17-22).
        #expect(count == 4 + 1 + 15 * 4 + 4 + 6 * 4)
    }

    @Test func aFactoryCardReadsAsAbsentAfterTwoCommands() async throws {
        let (content, count) = try await Self.read(MifareClassicCard.factoryFresh(model: .classic1K))
        #expect(content == .absent)
        #expect(count == 2)
    }

    @Test(arguments: [MifareClassicModel.classic1K, .classic4K, .mini])
    func formattingAFactoryCardMakesItReadable(model: MifareClassicModel) async throws {
        let message = try Self.uri(model == .mini ? 150 : 600)
        let channel = CardChannelAdapter(MifareClassicCard.factoryFresh(model: model))
        try await MifareClassicWriter(card: Self.cardName(model)).write(message, to: channel)
        let card = channel.card
        let (content, _) = try await Self.read(card)
        #expect(content == .message(message))
        // The layout is the formatter's: MAD in block 1-2, NDEF trailers everywhere.
        let mad = ClassicTrailer.mad1(for: model).encoded
        #expect(Array(card.memory[16..<48]) == mad)
        #expect(Array(card.memory[48..<64]) == ClassicTrailer.mad(gpb: model == .classic4K ? 0xC2 : 0xC1))
        for sector in model.ndefSectors {
            let trailer = MifareClassicModel.trailerBlock(ofSector: sector) * 16
            #expect(Array(card.memory[trailer..<(trailer + 16)]) == ClassicTrailer.ndef(), "sector \(sector)")
        }
        if model == .classic4K {
            #expect(Array(card.memory[(64 * 16)..<(67 * 16)]) == ClassicTrailer.mad2.encoded)
        }
    }

    /// Commands per write of a 40-byte URI (42-byte TLV, 3 blocks), as docs/tags.md gives them.
    @Test(
        arguments: [
            // MAD1 + GPB (5), NDEF key, auth + trailer check (2), 3 blocks + the length (4), 3 reads back.
            (MifareClassicModel.classic1K, false, 5 + 1 + 2 + 4 + 3),
            // The same and MAD2 (auth + 3 reads).
            (.classic4K, false, 5 + 4 + 1 + 2 + 4 + 3),
            // MAD key refused (2), factory key, survey of 16 sectors (32), sector 1 (auth, 3 blocks, trailer),
            // sectors 2-15 (auth, trailer), sector 0 (auth, MAD, trailer), NDEF key, the length (2), 3 reads.
            (.classic1K, true, 2 + 1 + 32 + 5 + 14 * 2 + 4 + 1 + 2 + 3),
            // 40 sectors surveyed; sectors 2-15 and 17-39 (auth, trailer); sector 16 (auth, MAD2, trailer).
            (.classic4K, true, 2 + 1 + 80 + 5 + 37 * 2 + 5 + 4 + 1 + 2 + 3),
        ] as [(MifareClassicModel, Bool, Int)])
    func commandsPerWrite(model: MifareClassicModel, factory: Bool, expected: Int) async throws {
        let start =
            factory ? MifareClassicCard.factoryFresh(model: model) : try MifareClassicCard(model: model, message: [])
        let channel = CardChannelAdapter(start)
        try await MifareClassicWriter(card: Self.cardName(model)).write(try Self.uri(40), to: channel)
        print(
            "classic write, \(model.displayName), \(factory ? "factory fresh" : "formatted"): \(channel.commands.count) commands"
        )
        #expect(channel.commands.count == expected)
    }

    @Test func aFactoryMiniWithoutItsCardNameIsRefusedUntouched() async throws {
        let channel = CardChannelAdapter(MifareClassicCard.factoryFresh(model: .mini))
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter().write(try Self.uri(40), to: channel)
        }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.description.contains("a MIFARE Classic Mini has 5 sectors") == true)
        #expect(channel.card.memory == MifareClassicCard.factoryFresh(model: .mini).memory)
    }

    @Test func rewritingAFormattedCardLearnsTheModelFromTheMAD() async throws {
        for model in MifareClassicModel.allCases {
            let channel = CardChannelAdapter(try MifareClassicCard(model: model, message: try Self.uri(100)))
            for length in [180, 12, 0] {
                let message = length == 0 ? [] : try Self.uri(length)
                try await MifareClassicWriter().write(message, to: channel)
                let (content, _) = try await Self.read(channel.card)
                #expect(content == (message.isEmpty ? .empty : .message(message)), "\(model) \(length)")
            }
        }
    }

    @Test func theWholeAreaFillsAndOneByteMoreIsRefused() async throws {
        let channel = CardChannelAdapter(try MifareClassicCard(model: .classic1K, message: []))
        let largest = try Self.uri(715)
        try await MifareClassicWriter().write(largest, to: channel)
        #expect(try await Self.read(channel.card).0 == .message(largest))
        let before = channel.card.memory
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter().write(try Self.uri(716), to: channel)
        }
        #expect(error?.code == .insufficientCapacity)
        #expect(channel.card.memory == before)
    }

    @Test func lockingMakesTheCardReadOnlyAndTheWriterRefusesIt() async throws {
        let message = try Self.uri(40)
        let channel = CardChannelAdapter(try MifareClassicCard(model: .classic1K, message: message))
        try await MifareClassicWriter().lock(channel)
        try await MifareClassicWriter().lock(channel)  // already read-only: nothing to do
        let locked = channel.card
        #expect(Array(locked.memory[(7 * 16)..<(8 * 16)]) == ClassicTrailer.ndef(isReadOnly: true))
        #expect(Array(locked.memory[54..<58]) == Hex.bytes("07 8F 0F C1"))
        #expect(try await Self.read(locked).0 == .message(message))
        let error = await #expect(throws: NFCTagError.self) {
            try await MifareClassicWriter().write(try Self.uri(20), to: channel)
        }
        #expect(error?.code == .readOnly)
        #expect(channel.card.memory == locked.memory)
    }

    @Test func aCardWhoseKeyBIsUnknownCannotBeLockedAndIsLeftAsItWas() async throws {
        var options = MifareClassicCard.Options()
        options.keyB = Hex.bytes("11 22 33 44 55 66")
        let channel = CardChannelAdapter(try MifareClassicCard(model: .classic1K, message: [], options: options))
        let before = channel.card.memory
        let error = await #expect(throws: NFCTagError.self) { try await MifareClassicWriter().lock(channel) }
        #expect(error?.code == .authenticationFailed)
        #expect(error?.description.contains("its key B is unknown") == true)
        #expect(channel.card.memory == before)
    }

    @Test func aFactoryCardCannotBeLocked() async throws {
        let channel = CardChannelAdapter(MifareClassicCard.factoryFresh(model: .classic1K))
        let error = await #expect(throws: NFCTagError.self) { try await MifareClassicWriter().lock(channel) }
        #expect(error?.code == .unsupportedCard)
    }

    /// A card that leaves after k commands of a write, for every k: it then holds the old message, an empty
    /// one or the new one, never anything else.
    @Test(arguments: [false, true])
    func aCardLeavingAtEveryCommandOfAWriteHoldsOldEmptyOrNew(factory: Bool) async throws {
        let old = try Self.uri(100)
        let new = try Self.uri(300)
        let start =
            factory
            ? MifareClassicCard.factoryFresh(model: .classic1K) : try MifareClassicCard(model: .classic1K, message: old)
        let full = CardChannelAdapter(start)
        try await MifareClassicWriter(card: .mifareClassic1K).write(new, to: full)
        let commands = full.commands.count
        #expect(commands > 10)
        var outcomes: [String: Int] = [:]
        for limit in 0..<commands {
            let channel = CardChannelAdapter(start, answeringAtMost: limit)
            await #expect(throws: NFCTagError.self) {
                try await MifareClassicWriter(card: .mifareClassic1K).write(new, to: channel)
            }
            var card = channel.card
            card.powerCycled()
            let content = try await Self.read(card).0
            let name =
                switch content {
                case .message(old) where !factory: "old"
                case .message(new): "new"
                case .empty: "empty"
                case .absent where factory: "absent"
                default: "other"
                }
            #expect(name != "other", "vanished after \(limit) of \(commands) commands: \(content)")
            outcomes[name, default: 0] += 1
        }
        print("classic write fault suite (factory: \(factory)): \(commands) commands, outcomes \(outcomes)")
        #expect(outcomes[factory ? "absent" : "old", default: 0] > 0 && outcomes["empty", default: 0] > 0)
    }
}
