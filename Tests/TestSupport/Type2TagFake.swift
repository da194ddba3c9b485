public import NFCTag
import Synchronization

/// A writable Type 2 tag behind an ACR122U-style reader: `FF CA 00 00 00` answers the UID, `FF B0 00 <page>
/// <Le>` up to 16 bytes, `FF D6 00 <page> 04 <data>` writes a page the way NTAG21x does (page 2 ORs the static
/// lock bytes, page 3 ORs the CC, pages under a set static lock bit answer `63 00`). It records every command.
public final class Type2TagFake: CardChannel {
    private struct State {
        var memory: [UInt8]
        var sent: [[UInt8]] = []
    }

    private let state: Mutex<State>
    /// The UID answered to `FF CA`.
    public let uid: [UInt8]

    /// Creates a tag.
    /// - Parameters:
    ///   - memory: the whole memory from page 0 (see ``Type2Memory/image(cc:dataArea:tail:)``).
    ///   - uid: the UID.
    public init(memory: [UInt8], uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]) {
        state = Mutex(State(memory: memory))
        self.uid = uid
    }

    /// The memory now.
    public var memory: [UInt8] { state.withLock { $0.memory } }
    /// The commands received so far.
    public var sent: [[UInt8]] { state.withLock { $0.sent } }
    /// The UPDATE BINARY commands received so far.
    public var writes: [[UInt8]] { sent.filter { $0.starts(with: [0xFF, 0xD6]) } }

    /// Answers a command.
    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            state.sent.append(command)
            if command == [0xFF, 0xCA, 0x00, 0x00, 0x00] { return uid + [0x90, 0x00] }
            guard command.count >= 5, command[0] == 0xFF else { return [0x6E, 0x00] }
            let page = Int(command[2]) << 8 | Int(command[3])
            let address = page * 4
            switch command[1] {
            case 0xB0:
                let le = command[4] == 0 ? 256 : Int(command[4])
                guard le % 4 == 0, le <= 16 else { return [0x67, 0x00] }
                guard address + le <= state.memory.count else { return [0x63, 0x00] }
                return Array(state.memory[address..<(address + le)]) + [0x90, 0x00]
            case 0xD6:
                guard command.count == 9, command[4] == 4 else { return [0x67, 0x00] }
                guard page >= 2, address + 4 <= state.memory.count else { return [0x63, 0x00] }
                let data = Array(command[5..<9])
                let lock0 = state.memory[10]
                let lock1 = state.memory[11]
                switch page {
                case 2:
                    state.memory[10] |= data[2]
                    state.memory[11] |= data[3]
                case 3:
                    guard lock0 & 0x08 == 0 else { return [0x63, 0x00] }
                    for offset in 0..<4 { state.memory[12 + offset] |= data[offset] }
                default:
                    if page < 8, lock0 & (0x10 << (page - 4)) != 0 { return [0x63, 0x00] }
                    if (8..<16).contains(page), lock1 & (1 << (page - 8)) != 0 { return [0x63, 0x00] }
                    state.memory.replaceSubrange(address..<(address + 4), with: data)
                }
                return [0x90, 0x00]
            default:
                return [0x6D, 0x00]
            }
        }
    }
}

/// A channel that passes commands to another until the `index`-th (counting from 0), which fails as a tag that
/// left the field does, and so does every later one.
public final class RippingChannel<Base: CardChannel>: CardChannel {
    /// The error of a ripped command.
    public struct Ripped: Error, CustomStringConvertible {
        /// Says where.
        public var description: String { "tag ripped away" }
    }

    private let base: Base
    private let index: Int
    private let count = Mutex(0)

    /// Creates the channel.
    /// - Parameters:
    ///   - base: the tag.
    ///   - index: the first command that fails.
    public init(_ base: Base, failingAt index: Int) {
        self.base = base
        self.index = index
    }

    /// Passes the command on, or fails.
    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let current = count.withLock { count in
            defer { count += 1 }
            return count
        }
        guard current < index else { throw Ripped() }
        return try await base.transmit(command)
    }
}
