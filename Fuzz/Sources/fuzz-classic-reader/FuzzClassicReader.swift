import FuzzSupport
import NFCTag

/// MIFARE Classic reads driven by a fuzzed card. The first byte picks the card:
/// - even: a card of model (byte >> 1) % 3 (Mini, 1K, 4K) whose memory is the rest of the input (zero-padded),
///   answering LOAD KEY, AUTHENTICATE (key A against the sector trailer), READ like an ACR122U. Invariants: the
///   read ends within a bounded number of commands, reads only MAD blocks and data blocks of the sectors the
///   MAD(s) mark NDEF, and agrees with `Type2TLV.ndefMessage(inDataArea:)` over those sectors' data blocks
///   (unless an NDEF sector refused the NDEF key, which must then be true of the memory); a message is never
///   longer than the NDEF area.
/// - odd: a card answering each command with the next length-prefixed chunk of the input. Invariants: a message
///   is no longer than a 4K's NDEF area (3360 bytes), nor than the data the card sent.
@_cdecl("fuzz_classic_reader_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        fuzzMemory(input.rest(), model: MifareClassicModel.allCases[Int(mode >> 1) % 3])
    } else {
        fuzzScript(input)
    }
    return 0
}

/// A Classic card whose memory is given.
final class MemoryCard: CardChannel, @unchecked Sendable {
    let memory: [UInt8]
    let model: MifareClassicModel
    var slots: [[UInt8]?] = [nil, nil]
    var sector: Int?
    var commands = 0
    var blocksRead = Set<Int>()

    init(memory: [UInt8], model: MifareClassicModel) {
        self.memory = Array(
            (memory + [UInt8](repeating: 0, count: model.blockCount * 16)).prefix(model.blockCount * 16))
        self.model = model
    }

    func keyA(ofSector sector: Int) -> [UInt8] {
        let trailer = MifareClassicModel.trailerBlock(ofSector: sector) * 16
        return Array(memory[trailer..<(trailer + 6)])
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        commands += 1
        check(commands <= 2 + 4 + 40 * 17, "more than \(2 + 4 + 40 * 17) commands: the read does not end")
        switch (command[0], command[1]) {
        case (0xFF, 0x82):
            check(command.count == 11 && command[3] < 2, "LOAD KEY \(command)")
            slots[Int(command[3])] = Array(command[5...])
            return [0x90, 0x00]
        case (0xFF, 0x86):
            check(command.count == 10 && command[8] == 0x60, "AUTHENTICATE \(command)")
            sector = nil
            let block = Int(command[7])
            guard block < model.blockCount, let key = slots[Int(command[9])] else { return [0x63, 0x00] }
            let candidate = MifareClassicModel.sector(ofBlock: block)
            guard keyA(ofSector: candidate) == key else { return [0x63, 0x00] }
            sector = candidate
            return [0x90, 0x00]
        case (0xFF, 0xB0):
            check(command.count == 5 && command[4] == 0x10, "READ \(command)")
            let block = Int(command[3])
            guard let sector, block < model.blockCount, MifareClassicModel.sector(ofBlock: block) == sector else {
                return [0x63, 0x00]
            }
            blocksRead.insert(block)
            return Array(memory[(block * 16)..<(block * 16 + 16)]) + [0x90, 0x00]
        default:
            check(false, "unexpected command \(command)")
            return [0x6D, 0x00]
        }
    }
}

func fuzzMemory(_ memory: [UInt8], model: MifareClassicModel) {
    let card = MemoryCard(memory: memory, model: model)
    let cardName: ATRInfo.CardName =
        switch model {
        case .mini: .mifareClassicMini
        case .classic1K: .mifareClassic1K
        case .classic4K: .mifareClassic4K
        }
    let result = runBlocking { try await MifareClassicReader().read(from: card, card: cardName) }

    // What the card holds, by the book.
    let bytes = card.memory
    let madKey = card.keyA(ofSector: 0) == ClassicKey.mad
    let mad1 = madKey ? MAD(bytes[16..<48], version: .mad1) : nil
    var sectors = mad1?.ndefSectors.filter { $0 < model.sectorCount } ?? []
    var madBlocks: Set<Int> = [1, 2]
    if model == .classic4K, card.keyA(ofSector: 16) == ClassicKey.mad, mad1 != nil {
        madBlocks.formUnion([64, 65, 66])
        if let mad2 = MAD(bytes[(64 * 16)..<(67 * 16)], version: .mad2) { sectors += mad2.ndefSectors }
    }
    let blocks = sectors.flatMap { MifareClassicModel.dataBlocks(ofSector: $0) }
    let allowed = madBlocks.union(blocks)
    check(card.blocksRead.isSubset(of: allowed), "read blocks \(card.blocksRead.subtracting(allowed).sorted())")

    let area = blocks.flatMap { bytes[($0 * 16)..<($0 * 16 + 16)] }
    switch result {
    case .success(.message(let message)):
        check(message.count <= area.count, "\(message.count)-byte message, \(area.count)-byte area")
        check((try? Type2TLV.ndefMessage(inDataArea: area)) == .message(message), "the dump disagrees on \(message)")
    case .success(let content):
        if mad1 != nil, !sectors.isEmpty, sectors.allSatisfy({ card.keyA(ofSector: $0) == ClassicKey.ndef }) {
            check((try? Type2TLV.ndefMessage(inDataArea: area)) == content, "read \(content), the dump disagrees")
        }
    case .failure(let error as NFCTagError):
        switch error.code {
        case .authenticationFailed:
            check(sectors.contains { card.keyA(ofSector: $0) != ClassicKey.ndef }, "NDEF key refused: \(error)")
        case .malformedTLV:
            if sectors.allSatisfy({ card.keyA(ofSector: $0) == ClassicKey.ndef }) {
                let dump = Result { try Type2TLV.ndefMessage(inDataArea: area) }
                if case .success(let parsed) = dump { check(false, "read threw \(error), the dump parsed \(parsed)") }
            }
        default:
            check(false, "unexpected error \(error)")
        }
    case .failure(let error):
        check(false, "unexpected error \(error)")
    }
}

/// A card answering from a script.
final class ScriptedCard: CardChannel, @unchecked Sendable {
    let script: ScriptChannel
    init(_ script: ScriptChannel) { self.script = script }
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { try script.answer(command) }
}

func fuzzScript(_ input: FuzzInput) {
    var input = input
    let name: ATRInfo.CardName = [.mifareClassicMini, .mifareClassic1K, .mifareClassic4K][Int(input.byte() ?? 0) % 3]
    let script = ScriptChannel(input)
    let result = runBlocking { try await MifareClassicReader().read(from: ScriptedCard(script), card: name) }
    check(script.commands.count <= 2 + 4 + 40 * 17, "\(script.commands.count) commands")
    guard case .success(.message(let message)) = result else { return }
    check(message.count <= 3360, "\(message.count)-byte message")
    check(
        message.count <= script.dataBytesAnswered,
        "\(message.count)-byte message from \(script.dataBytesAnswered) bytes")
}
