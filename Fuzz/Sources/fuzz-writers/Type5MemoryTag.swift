import FuzzSupport
import NFCTag

/// A Type 5 tag whose memory is given, answering READ (`FF B0`) and UPDATE (`FF D6`) one block per command as
/// `Sources/VirtualTag/Type5Card.swift` does, the block number in P1-P2 or in P1 (low) and P2 (high).
final class Type5MemoryTag: CardChannel, @unchecked Sendable {
    private(set) var memory: [UInt8]
    let blockSize: Int
    let blockInP1: Bool
    let isReadOnly: Bool
    var vanishing: Vanishing

    init(memory: [UInt8], blockSize: Int, blockInP1: Bool, isReadOnly: Bool, budget: Int?) {
        self.memory = memory
        self.blockSize = blockSize
        self.blockInP1 = blockInP1
        self.isReadOnly = isReadOnly
        vanishing = Vanishing(budget: budget)
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try vanishing.count()
        let answer = respond(command)
        if answer.suffix(2) != [0x90, 0x00] { vanishing.refused = true }
        return answer
    }

    private func respond(_ command: [UInt8]) -> [UInt8] {
        check(command.count >= 5 && command[0] == 0xFF, "not a storage-card command: \(command)")
        let block = blockInP1 ? Int(command[3]) << 8 | Int(command[2]) : Int(command[2]) << 8 | Int(command[3])
        switch command[1] {
        case 0xB0:
            check(command.count == 5, "READ \(command)")
            guard block < memory.count / blockSize else { return [0x6B, 0x00] }
            guard Int(command[4]) == blockSize else { return [0x6C, UInt8(blockSize)] }
            return Array(memory[(block * blockSize)..<((block + 1) * blockSize)]) + [0x90, 0x00]
        case 0xD6:
            check(command.count == 5 + Int(command[4]), "UPDATE \(command)")
            guard block < memory.count / blockSize else { return [0x6B, 0x00] }
            guard command.count - 5 == blockSize else { return [0x67, 0x00] }
            guard !isReadOnly else { return [0x69, 0x82] }
            memory.replaceSubrange((block * blockSize)..<((block + 1) * blockSize), with: command[5...])
            return [0x90, 0x00]
        default:
            check(false, "unexpected command \(command)")
            return [0x6D, 0x00]
        }
    }
}
