import NFCTag
import Testing
import VirtualTag

import enum TestSupport.Hex

/// The FeliCa Lite-S emulation at frame level, and the NFCTag Type 3 reader and writer against it.
struct FeliCaCardTests {
    static let message = Hex.bytes("D1 01 04 55 04 61 2E 62")
    static let idm = "01 27 00 5D 1A 2B 3C 4D"

    @Test func attributeBlockOfAFactoryLiteS() throws {
        let card = try FeliCaCard(message: Self.message)
        #expect(Array(card.memory[0..<16]) == Hex.bytes("10 04 01 00 0D 00 00 00 00 00 01 00 00 08 00 2B"))
        #expect(card.atr == Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 11 00 00 00 00 8A"))
    }

    @Test(arguments: [
        // IDm
        ("FF CA 00 00 00", "\(idm) 90 00"),
        // Polling for 12FC through the PN532
        ("FF 00 00 00 09 D4 40 01 06 00 12 FC 00 00", "D5 41 00 12 01 \(idm) 00 F1 00 00 00 01 43 00 90 00"),
        // Polling for another system: silence, the PN532 times out
        ("FF 00 00 00 09 D4 40 01 06 00 88 B4 00 00", "D5 41 01 90 00"),
        // Read block 0
        (
            "FF 00 00 00 13 D4 40 01 10 06 \(idm) 01 0B 00 01 80 00",
            "D5 41 00 1D 07 \(idm) 00 00 01 10 04 01 00 0D 00 00 00 00 00 01 00 00 08 00 2B 90 00"
        ),
        // Wrong LEN: silence
        ("FF 00 00 00 13 D4 40 01 11 06 \(idm) 01 0B 00 01 80 00", "D5 41 01 90 00"),
        // Another IDm: silence
        ("FF 00 00 00 13 D4 40 01 10 06 01 27 00 5D 1A 2B 3C 4E 01 0B 00 01 80 00", "D5 41 01 90 00"),
        // Block 14 does not exist: SF1 01 SF2 A8
        ("FF 00 00 00 13 D4 40 01 10 06 \(idm) 01 0B 00 01 80 0E", "D5 41 00 0C 07 \(idm) 01 A8 90 00"),
        // Service 1234: SF2 A6
        ("FF 00 00 00 13 D4 40 01 10 06 \(idm) 01 34 12 01 80 00", "D5 41 00 0C 07 \(idm) 01 A6 90 00"),
        // Write to the read-only service 000B: SF2 A6
        (
            "FF 00 00 00 23 D4 40 01 20 08 \(idm) 01 0B 00 01 80 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
            "D5 41 00 0C 09 \(idm) 01 A6 90 00"
        ),
        // Not the PN532 InDataExchange
        ("FF 00 00 00 02 D4 4A", "63 00"),
    ])
    func answersLikeALiteSOnAnACR122U(command: String, response: String) throws {
        var card = try FeliCaCard(message: Self.message)
        #expect(card.respond(to: Hex.bytes(command)) == Hex.bytes(response))
    }

    static func options(_ reader: FeliCaCard.Reader) -> FeliCaCard.Options {
        var options = FeliCaCard.Options()
        options.reader = reader
        return options
    }

    @Test(arguments: FeliCaCard.Reader.allCases)
    func readAndWriteOnEveryReaderPath(reader: FeliCaCard.Reader) async throws {
        let card = try FeliCaCard(message: Self.message, options: Self.options(reader))
        let channel = CardChannelAdapter(card)
        // The Identiv path has no Polling: the IDm comes from FF CA, as TagReader passes it.
        let idm = reader == .identiv ? Hex.bytes(Self.idm) : nil
        #expect(try await Type3Reader().read(from: channel, atr: card.atr, idm: idm) == .message(Self.message))
        let long = [UInt8](repeating: 0x3C, count: 208)
        try await Type3Writer().write(long, to: channel, atr: card.atr)
        #expect(
            try await Type3Reader().read(
                from: CardChannelAdapter(channel.card), atr: card.atr, idm: Hex.bytes(Self.idm))
                == .message(long))
        let reading = try await TagReader().read(atr: card.atr, channel: CardChannelAdapter(channel.card))
        #expect(reading == TagReading(uid: Hex.bytes(Self.idm), technology: .felica, content: .message(long)))
    }

    /// The card leaves at every command of a write: it then holds the old message, an empty one (WriteF 0F with
    /// Ln 0, the writer's first step) or the new one, never a mix or a torn message.
    @Test func aWriteInterruptedAtEveryCommandLeavesOldEmptyOrNew() async throws {
        let old = try FeliCaCard(message: Self.message)
        let new = [UInt8](repeating: 0xA5, count: 60)
        let full = CardChannelAdapter(old)
        try await Type3Writer().write(new, to: full, atr: old.atr)
        let commands = full.commands.count
        var outcomes: Set<String> = []
        for limit in 0..<commands {
            let channel = CardChannelAdapter(old, answeringAtMost: limit)
            await #expect(throws: NFCTagError.self) { try await Type3Writer().write(new, to: channel, atr: old.atr) }
            do {
                let content = try await Type3Reader().read(
                    from: CardChannelAdapter(channel.card), atr: old.atr, idm: nil)
                switch content {
                case .message(Self.message): outcomes.insert("old")
                case .message(new): outcomes.insert("new")
                case .empty: outcomes.insert("empty")
                default: Issue.record("after \(limit) commands the card holds \(content)")
                }
            } catch {
                Issue.record("after \(limit) commands the card does not read: \(error)")
            }
        }
        #expect(outcomes == ["old", "empty", "new"])
    }

    @Test func readOnlyAndLock() async throws {
        var options = FeliCaCard.Options()
        options.isReadOnly = true
        let card = try FeliCaCard(message: Self.message, options: options)
        let channel = CardChannelAdapter(card)
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Writer().write([0xD0, 0, 0], to: channel, atr: card.atr)
        }
        #expect(error?.code == .readOnly)
        #expect(channel.card.memory == card.memory)

        let writable = CardChannelAdapter(try FeliCaCard(message: Self.message))
        try await Type3Writer().lock(writable, atr: card.atr)
        #expect(writable.card.memory[10] == 0x00)
        let refused = await #expect(throws: NFCTagError.self) {
            try await Type3Writer().write([0xD0, 0, 0], to: writable, atr: card.atr)
        }
        #expect(refused?.code == .readOnly)
    }
}

/// The Topaz 512 emulation, read by the NFCTag Type 1 reader.
struct Type1CardTests {
    @Test func readAllGivesTheMessageAndTheReaderReadsIt() async throws {
        let message = Hex.bytes("D1 01 04 55 04 61 2E 62")
        var card = try Type1Card(message: message)
        #expect(card.atr == Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F"))
        #expect(card.respond(to: Hex.bytes("FF CA 00 00 00")) == Hex.bytes("3A 81 5C 0D 90 00"))
        #expect(card.respond(to: Hex.bytes("FF 00 00 00 05 D4 40 01 01 08")) == Hex.bytes("D5 41 00 08 E1 90 00"))
        #expect(card.respond(to: Hex.bytes("FF 00 00 00 05 D4 40 01 78 00")) == Hex.bytes("D5 41 01 90 00"))
        let reading = try await TagReader().read(atr: card.atr, channel: CardChannelAdapter(card))
        #expect(reading == TagReading(uid: Hex.bytes("3A815C0D"), technology: .type1, content: .message(message)))
    }

    @Test func tooLarge() {
        #expect(throws: VirtualTagError.messageTooLarge(tag: "type1", size: 90, capacity: 89)) {
            try Type1Card(message: [UInt8](repeating: 0, count: 90))
        }
    }
}

/// FeliCa cards without NDEF are still tags: their IDm, no records.
struct FeliCaWithoutNDEFTests {
    @Test func feliCaStandardWithoutTheNDEFSystemIsAbsentAfterPolling() async throws {
        var options = FeliCaCard.Options()
        options.hasNDEFSystem = false
        let card = try FeliCaCard(message: [], options: options)
        let channel = CardChannelAdapter(card)
        let reading = try await TagReader().read(atr: card.atr, channel: channel)
        #expect(reading == TagReading(uid: options.idm, technology: .felica, content: .absent))
        // FF CA, block 0 (SF2 A6), Polling for 12FC (no answer).
        #expect(channel.commands.count == 3)
    }

    @Test func factoryLiteSWithBlock0AllZerosIsAbsent() async throws {
        let card = FeliCaCard(memory: [])
        let reading = try await TagReader().read(atr: card.atr, channel: CardChannelAdapter(card))
        #expect(reading.content == .absent)
        let error = await #expect(throws: NFCTagError.self) {
            try await Type3Writer().write([0xD0, 0, 0], to: CardChannelAdapter(card), atr: card.atr)
        }
        #expect(error?.code == .malformedCapabilityContainer)
    }
}
