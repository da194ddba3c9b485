import NFCTag
import Synchronization

/// A MIFARE Classic card in memory that counts the commands it answers: LOAD KEY, AUTHENTICATE (keys checked
/// against the trailers), READ and UPDATE inside the authenticated sector. Access bits are not enforced: the
/// benchmark counts commands, the emulator's tests check the rules.
final class CountingCard: CardChannel {
    private struct State {
        var memory: [UInt8]
        var slots: [[UInt8]?] = [nil, nil]
        var sector: Int?
        var commands = 0
    }

    private let state: Mutex<State>

    /// A card of `model` with every sector formatted for NDEF and holding `message`, or factory fresh.
    init(model: MifareClassicModel, message: [UInt8]?) {
        var memory = [UInt8](repeating: 0, count: model.blockCount * 16)
        func put(_ block: Int, _ bytes: [UInt8]) {
            memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: bytes)
        }
        for sector in 0..<model.sectorCount {
            put(MifareClassicModel.trailerBlock(ofSector: sector), ClassicTrailer.factory)
        }
        if let message {
            let mad1 = ClassicTrailer.mad1(for: model).encoded
            put(1, Array(mad1[0..<16]))
            put(2, Array(mad1[16..<32]))
            put(3, ClassicTrailer.mad(gpb: model == .classic4K ? 0xC2 : 0xC1))
            if model == .classic4K {
                let mad2 = ClassicTrailer.mad2.encoded
                for index in 0..<3 { put(64 + index, Array(mad2[(index * 16)..<(index * 16 + 16)])) }
                put(67, ClassicTrailer.mad(gpb: 0xC2))
            }
            let blocks = model.ndefSectors.flatMap { MifareClassicModel.dataBlocks(ofSector: $0) }
            for sector in model.ndefSectors {
                put(MifareClassicModel.trailerBlock(ofSector: sector), ClassicTrailer.ndef())
            }
            let stream = [0x03, UInt8(message.count)] + message + [0xFE]
            for (index, byte) in stream.enumerated() { memory[blocks[index / 16] * 16 + index % 16] = byte }
        }
        state = Mutex(State(memory: memory))
    }

    /// The commands answered so far.
    var commands: Int { state.withLock { $0.commands } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            state.commands += 1
            switch command[1] {
            case 0x82:
                state.slots[Int(command[3])] = Array(command[5..<11])
                return [0x90, 0x00]
            case 0x86:
                let block = Int(command[7])
                let sector = MifareClassicModel.sector(ofBlock: block)
                let trailer = MifareClassicModel.trailerBlock(ofSector: sector) * 16
                let stored =
                    command[8] == 0x60
                    ? state.memory[trailer..<(trailer + 6)] : state.memory[(trailer + 10)..<(trailer + 16)]
                guard let key = state.slots[Int(command[9])], Array(stored) == key else {
                    state.sector = nil
                    return [0x63, 0x00]
                }
                state.sector = sector
                return [0x90, 0x00]
            case 0xB0, 0xD6:
                let block = Int(command[3])
                guard MifareClassicModel.sector(ofBlock: block) == state.sector else { return [0x63, 0x00] }
                if command[1] == 0xD6 {
                    state.memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: command[5..<21])
                    return [0x90, 0x00]
                }
                return Array(state.memory[(block * 16)..<(block * 16 + 16)]) + [0x90, 0x00]
            default:
                return [0x6D, 0x00]
            }
        }
    }
}
