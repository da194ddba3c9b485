import NFCTag
import Testing
import VirtualTag

import enum TestSupport.Hex

/// The Type 5 emulation at APDU level, and the NFCTag Type 5 reader and writer against it.
struct Type5CardTests {
    static let message = Hex.bytes("D1 01 04 55 04 61 2E 62")

    @Test func factoryLayoutIsAnICODESLIX2WithAFourByteCC() throws {
        let card = try Type5Card(message: Self.message)
        #expect(card.memory.count == 320)
        #expect(Array(card.memory[0..<15]) == Hex.bytes("E1 40 28 01 03 08 D1 01 04 55 04 61 2E 62 FE"))
        #expect(card.atr == Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77"))
    }

    @Test(arguments: [
        ("FF CA 00 00 00", "1F 2D 3C 8A 50 01 04 E0 90 00"),
        ("FF B0 00 00 04", "E1 40 28 01 90 00"),
        ("FF B0 00 01 04", "03 08 D1 01 90 00"),
        ("FF B0 00 01 10", "6C 04"),
        ("FF B0 00 50 04", "6B 00"),
        ("FF D6 00 01 02 AA BB", "67 00"),
        ("FF D6 00 50 04 00 00 00 00", "6B 00"),
        ("FF 00 00 00 02 D4 4A", "6D 00"),
        ("00 B0 00 00 04", "6E 00"),
    ])
    func answersLikeAnOMNIKEY(command: String, response: String) throws {
        var card = try Type5Card(message: Self.message)
        #expect(card.respond(to: Hex.bytes(command)) == Hex.bytes(response))
    }

    @Test func blockInP1ReaderFailsTheOMNIKEYFormPastBlock0() throws {
        var options = Type5Card.Options()
        options.blockInP1 = true
        var card = try Type5Card(message: Self.message, options: options)
        #expect(card.respond(to: Hex.bytes("FF B0 00 01 04")) == Hex.bytes("6B 00"))
        #expect(card.respond(to: Hex.bytes("FF B0 01 00 04")) == Hex.bytes("03 08 D1 01 90 00"))
    }

    /// Layouts the reader must handle, each read and written through the card's own commands.
    static let layouts: [(String, Type5Card.Options)] = {
        var eightByteBlocks = Type5Card.Options()
        eightByteBlocks.blockSize = 8
        eightByteBlocks.blockCount = 32
        var eightByteCC = Type5Card.Options()
        eightByteCC.eightByteCC = true
        eightByteCC.twoByteAddressing = true
        eightByteCC.blockCount = 2048
        var windows = Type5Card.Options()
        windows.blockInP1 = true
        windows.standard = 0x0C
        return [
            ("SLIX2", Type5Card.Options()), ("8-byte blocks", eightByteBlocks), ("ST25DV64K", eightByteCC),
            ("block in P1", windows),
        ]
    }()

    @Test(arguments: 0..<4)
    func readAndWriteEveryLayout(layout: Int) async throws {
        let (name, options) = Self.layouts[layout]
        let card = try Type5Card(message: Self.message, options: options)
        let channel = CardChannelAdapter(card)
        #expect(try await Type5Reader().read(from: channel) == .message(Self.message), "\(name)")
        let long = [UInt8](repeating: 0x5A, count: 150)
        try await Type5Writer().write(long, to: channel)
        #expect(try await Type5Reader().read(from: CardChannelAdapter(channel.card)) == .message(long), "\(name)")
        try await Type5Writer().write([], to: channel)
        #expect(try await Type5Reader().read(from: CardChannelAdapter(channel.card)) == .empty, "\(name)")
    }

    @Test func aLongMessagePastBlock255OnAnE2Tag() async throws {
        var options = Type5Card.Options()
        options.eightByteCC = true
        options.twoByteAddressing = true
        options.blockCount = 2048
        let channel = CardChannelAdapter(try Type5Card(message: [], options: options))
        let message = (0..<3000).map { UInt8($0 & 0xFF) }
        try await Type5Writer().write(message, to: channel)
        #expect(try await Type5Reader().read(from: CardChannelAdapter(channel.card)) == .message(message))
    }

    /// The tag leaves at every command of a write: it then holds the old message, an empty one or the new one.
    @Test func aWriteInterruptedAtEveryCommandLeavesOldEmptyOrNew() async throws {
        let old = try Type5Card(message: Self.message)
        let new = [UInt8](repeating: 0xA5, count: 60)
        let full = CardChannelAdapter(old)
        try await Type5Writer().write(new, to: full)
        let commands = full.commands.count
        #expect(commands > 10)
        var outcomes: Set<String> = []
        for limit in 0..<commands {
            let channel = CardChannelAdapter(old, answeringAtMost: limit)
            await #expect(throws: NFCTagError.self) { try await Type5Writer().write(new, to: channel) }
            let content = try await Type5Reader().read(from: CardChannelAdapter(channel.card))
            switch content {
            case .message(Self.message): outcomes.insert("old")
            case .empty: outcomes.insert("empty")
            case .message(new): outcomes.insert("new")
            default: Issue.record("after \(limit) commands the tag holds \(content)")
            }
        }
        #expect(outcomes == ["old", "empty", "new"])
    }

    @Test func readOnlyTagIsRefusedAndUntouched() async throws {
        var options = Type5Card.Options()
        options.isReadOnly = true
        let card = try Type5Card(message: Self.message, options: options)
        let channel = CardChannelAdapter(card)
        let error = await #expect(throws: NFCTagError.self) {
            try await Type5Writer().write([0xD0, 0, 0], to: channel)
        }
        #expect(error?.code == .readOnly)
        #expect(channel.card.memory == card.memory)
    }

    @Test func lockThenWriteIsRefused() async throws {
        let channel = CardChannelAdapter(try Type5Card(message: Self.message))
        try await Type5Writer().lock(channel)
        #expect(channel.card.memory[1] == 0x43)
        let error = await #expect(throws: NFCTagError.self) {
            try await Type5Writer().write([0xD0, 0, 0], to: channel)
        }
        #expect(error?.code == .readOnly)
        #expect(try await Type5Reader().read(from: channel) == .message(Self.message))
    }

    @Test func blankTagHasNoNDEF() async throws {
        var options = Type5Card.Options()
        options.isBlank = true
        let channel = CardChannelAdapter(try Type5Card(message: [], options: options))
        #expect(try await Type5Reader().read(from: channel) == .absent)
        #expect(channel.commands.count == 1)
    }

    @Test func tooLargeForTheTag() {
        #expect(throws: VirtualTagError.messageTooLarge(tag: "type5", size: 400, capacity: 312)) {
            try Type5Card(message: [UInt8](repeating: 0, count: 400))
        }
    }
}
