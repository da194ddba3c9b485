import FuzzSupport
import NFCTag

/// A FeliCa card whose user blocks are given, answering `FF CA`, Polling, Read and Write Without Encryption as
/// `Sources/VirtualTag/FeliCaCard.swift` does, through the ACR122U (PN532), ACR1252U (direct) or Identiv
/// (`FF 46`/`FF 48`) path. It reads up to 15 blocks a command (more than the 12 a reader asks for) and writes up to
/// `maxWrite`; its size is the fuzzer's.
final class FeliCaMemoryCard: CardChannel, @unchecked Sendable {
    /// The reader paths of `FeliCaCard`.
    enum Path {
        case acr122u, acr1252u, identiv
    }

    private(set) var memory: [UInt8]
    let blockCount: Int
    let path: Path
    let maxWrite: Int
    let idm: [UInt8] = [0x01, 0x27, 0x00, 0x5D, 0x1A, 0x2B, 0x3C, 0x4D]
    let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    var vanishing: Vanishing

    init(memory: [UInt8], path: Path, maxWrite: Int, budget: Int?) {
        blockCount = (memory.count + 15) / 16
        self.memory = memory + [UInt8](repeating: 0, count: blockCount * 16 - memory.count)
        self.path = path
        self.maxWrite = maxWrite
        vanishing = Vanishing(budget: budget)
    }

    /// The ATR the reader synthesises: ACR122U (card name `F0 11`), or standard `11` (ACR1252U, Identiv).
    var atr: [UInt8] {
        let name: [UInt8] = path == .acr122u ? [0x03, 0xF0, 0x11] : [0x11, 0x00, 0x3B]
        let body: [UInt8] = [0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06] + name + [0, 0, 0, 0]
        return [0x3B] + body + [body.reduce(0, ^)]
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try vanishing.count()
        check(command.count >= 5 && command.count == 5 + Int(command[4]), "malformed APDU \(command)")
        let data = Array(command.dropFirst(5))
        guard command[0] == 0xFF else { return [0x6E, 0x00] }
        switch (command[1], path) {
        case (0xCA, _):
            return command[2] == 0x00 ? idm + [0x90, 0x00] : [0x6A, 0x81]
        case (0x00, .acr122u):
            guard data.count >= 3, data.prefix(3).elementsEqual([0xD4, 0x40, 0x01]) else { return [0x63, 0x00] }
            guard let response = answer(Array(data.dropFirst(3))) else { return [0xD5, 0x41, 0x01, 0x90, 0x00] }
            return [0xD5, 0x41, 0x00] + response + [0x90, 0x00]
        case (0x00, .acr1252u):
            guard let response = answer(data) else { return [0x63, 0x00] }
            return response + [0x90, 0x00]
        case (0x46, .identiv), (0x48, .identiv):
            return felicaCommand(command, data: data)
        case (0x00, .identiv):
            return [0x6A, 0x81]
        default:
            return [0x6D, 0x00]
        }
    }

    /// Answers a FeliCa frame; nil when the card stays silent.
    private func answer(_ frame: [UInt8]) -> [UInt8]? {
        switch FeliCaCommand(frame: frame, idm: idm) {
        case nil:
            return nil
        case .polling(let system):
            guard system == 0xFFFF || system == 0x12FC else { return nil }
            return framed([0x01] + idm + pmm)
        case .unsupportedServiceCount(let code):
            return framed([code + 1] + idm + [0x01, 0xA1])
        case .blocks(let code, let service, let blocks, let data):
            return framed([code + 1] + idm + serve(code: code, service: service, blocks: blocks, data: data))
        }
    }

    /// The parameters after the IDm: `SF1 SF2 [n data]`.
    private func serve(code: UInt8, service: Int, blocks: [Int], data: [UInt8]) -> [UInt8] {
        let answer = serving(code: code, service: service, blocks: blocks, data: data)
        if answer[0] != 0x00 { vanishing.refused = true }
        return answer
    }

    private func serving(code: UInt8, service: Int, blocks: [Int], data: [UInt8]) -> [UInt8] {
        let isRead = code == 0x06
        guard isRead ? (service == 0x000B || service == 0x0009) : service == 0x0009 else { return [0x01, 0xA6] }
        guard !blocks.isEmpty, blocks.count <= (isRead ? 15 : maxWrite) else { return [0x01, 0xA2] }
        guard blocks.allSatisfy({ $0 < blockCount }) else { return [0x01, 0xA8] }
        if isRead {
            guard data.isEmpty else { return [0x01, 0xA2] }
            return [0x00, 0x00, UInt8(blocks.count)] + blocks.flatMap { memory[($0 * 16)..<($0 * 16 + 16)] }
        }
        guard data.count == 16 * blocks.count else { return [0x01, 0xA2] }
        for (offset, block) in blocks.enumerated() {
            memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: data[(offset * 16)..<(offset * 16 + 16)])
        }
        return [0x00, 0x00]
    }

    /// `FF 46`/`FF 48 <n svc> <n blk> Lc <services LE> <block numbers BE> [data]`, answered
    /// `IDm SF1 SF2 [n data] 90 00`.
    private func felicaCommand(_ command: [UInt8], data: [UInt8]) -> [UInt8] {
        let serviceCount = Int(command[2])
        let count = Int(command[3])
        let listSize = 2 * serviceCount + 2 * count
        guard serviceCount == 1, data.count >= listSize else { return [0x67, 0x00] }
        let service = Int(data[1]) << 8 | Int(data[0])
        let blocks = (0..<count).map { Int(data[2 + 2 * $0]) << 8 | Int(data[3 + 2 * $0]) }
        let code: UInt8 = command[1] == 0x46 ? 0x06 : 0x08
        return idm + serve(code: code, service: service, blocks: blocks, data: Array(data[listSize...])) + [0x90, 0x00]
    }

    private func framed(_ body: [UInt8]) -> [UInt8] { [UInt8(body.count + 1)] + body }
}
