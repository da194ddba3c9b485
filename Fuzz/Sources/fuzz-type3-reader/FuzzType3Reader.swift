import FuzzSupport
import NFCTag

/// Type 3 (FeliCa) reads driven by a fuzzed card. The first byte picks the card:
/// - even: a FeliCa card whose user blocks (attribute block, then data blocks) are the rest of the input,
///   zero-padded to whole blocks, answering Polling, Read Without Encryption and Write Without Encryption like
///   `VirtualTag`'s `FeliCaCard`, through the reader path of bits 1-2 (ACR122U's PN532, ACR1252U's direct
///   transmit, Identiv's `FF 46`/`FF 48`); bit 3: the IDm is given (as `FF CA` gives it) rather than polled for;
///   bit 4: a card without the NDEF system; bits 5-7: the most blocks the card reads per command (1, 2, 3, 4, 6,
///   8, 12, 15). Invariants: the read ends within 8 commands plus one per block; it asks for block 0 and then only
///   blocks 1 to ⌈Ln / 16⌉ of a valid attribute block, at most min(Nbr, 12) a command; and its outcome is exactly
///   the card's: `.absent` without the NDEF system, for a block 0 of zeros, or polled for through `FF 46`; the
///   error `Type3AttributeBlock(_:)` gives for a malformed attribute block; the Ln bytes after it for a valid one,
///   or the status error (`unexpectedStatus` at the byte of the first block asked for) of the command the card
///   refused: more blocks than it reads, or blocks it does not have.
/// - odd: a card answering each command with the next length-prefixed chunk of the input, behind an ACR122U or an
///   ACR1252U ATR (bit 0 of the next byte), the IDm given or polled for (bit 1). Invariants: the read ends (one
///   command per chunk, plus the one that finds the script empty); errors are `NFCTagError`s at a byte offset
///   inside what the commands asked for; a message is no longer than the data bytes the card sent.
@_cdecl("fuzz_type3_reader_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        let path = [Path.acr122u, .acr1252u, .identiv, .acr1252u][Int(mode >> 1) & 3]
        let card = MemoryCard(
            memory: input.rest(), path: path, hasNDEFSystem: mode & 0x10 == 0,
            maxRead: [4, 1, 2, 3, 6, 8, 12, 15][Int(mode >> 5)])
        fuzzMemory(card, idmGiven: mode & 0x08 != 0)
    } else {
        fuzzScript(input, size: size)
    }
    return 0
}

/// The ATRs the readers synthesise: ACR122U (card name `F0 11`) and ACR1252U (standard `11`, also Identiv's).
let acr122uATR: [UInt8] = [
    0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0xF0, 0x11, 0x00, 0x00, 0x00, 0x00,
    0x8A,
]
let acr1252uATR: [UInt8] = [
    0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x11, 0x00, 0x3B, 0x00, 0x00, 0x00, 0x00,
    0x42,
]

/// The reader paths of `FeliCaCard`.
enum Path {
    case acr122u, acr1252u, identiv
}

/// A FeliCa card whose user blocks are given, answering as `Sources/VirtualTag/FeliCaCard.swift` does (its size and
/// the blocks per read are the fuzzer's instead of a Lite-S's 14 and 4).
final class MemoryCard: CardChannel, @unchecked Sendable {
    let memory: [UInt8]
    let blockCount: Int
    let path: Path
    let hasNDEFSystem: Bool
    let maxRead: Int
    let idm: [UInt8] = [0x01, 0x27, 0x00, 0x5D, 0x1A, 0x2B, 0x3C, 0x4D]
    let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    var commands = 0
    /// The blocks of each Read Without Encryption, in order.
    var reads: [[Int]] = []

    init(memory: [UInt8], path: Path, hasNDEFSystem: Bool, maxRead: Int) {
        blockCount = (memory.count + 15) / 16
        self.memory = memory + [UInt8](repeating: 0, count: blockCount * 16 - memory.count)
        self.path = path
        self.hasNDEFSystem = hasNDEFSystem
        self.maxRead = maxRead
    }

    var atr: [UInt8] { path == .acr122u ? acr122uATR : acr1252uATR }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        commands += 1
        check(commands <= 8 + blockCount, "\(commands) commands for \(blockCount) blocks: the read does not end")
        // Short APDUs only: CLA INS P1 P2 Lc data.
        check(command.count >= 5 && command.count == 5 + Int(command[4]), "malformed APDU \(command)")
        let data = Array(command[5...])
        guard command[0] == 0xFF else { return [0x6E, 0x00] }
        switch (command[1], path) {
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
    func answer(_ frame: [UInt8]) -> [UInt8]? {
        switch FeliCaCommand(frame: frame, idm: idm) {
        case nil:
            return nil
        case .polling(let system):
            guard system == 0xFFFF || (system == 0x12FC && hasNDEFSystem) else { return nil }
            return framed([0x01] + idm + pmm)
        case .unsupportedServiceCount(let code):
            return framed([code + 1] + idm + [0x01, 0xA1])
        case .blocks(let code, let service, let blocks, let data):
            return framed([code + 1] + idm + serve(code: code, service: service, blocks: blocks, data: data))
        }
    }

    /// The parameters after the IDm: `SF1 SF2 [n data]`. The card is never written.
    func serve(code: UInt8, service: Int, blocks: [Int], data: [UInt8]) -> [UInt8] {
        check(code == 0x06, "a reader wrote blocks \(blocks)")
        reads.append(blocks)
        guard hasNDEFSystem else { return [0x01, 0xA6] }
        guard service == 0x000B || service == 0x0009 else { return [0x01, 0xA6] }
        guard !blocks.isEmpty, blocks.count <= maxRead else { return [0x01, 0xA2] }
        guard blocks.allSatisfy({ $0 < blockCount }) else { return [0x01, 0xA8] }
        guard data.isEmpty else { return [0x01, 0xA2] }
        return [0x00, 0x00, UInt8(blocks.count)] + blocks.flatMap { memory[($0 * 16)..<($0 * 16 + 16)] }
    }

    /// `FF 46 <n svc> <n blk> Lc <services LE> <block numbers BE>`, answered `IDm SF1 SF2 [n data] 90 00`.
    func felicaCommand(_ command: [UInt8], data: [UInt8]) -> [UInt8] {
        let serviceCount = Int(command[2])
        let count = Int(command[3])
        let listSize = 2 * serviceCount + 2 * count
        guard serviceCount == 1, data.count >= listSize else { return [0x67, 0x00] }
        let service = Int(data[1]) << 8 | Int(data[0])
        let blocks = (0..<count).map { Int(data[2 + 2 * $0]) << 8 | Int(data[3 + 2 * $0]) }
        let code: UInt8 = command[1] == 0x46 ? 0x06 : 0x08
        return idm + serve(code: code, service: service, blocks: blocks, data: Array(data[listSize...])) + [0x90, 0x00]
    }

    func framed(_ body: [UInt8]) -> [UInt8] { [UInt8(body.count + 1)] + body }
}

/// What a read of `card` must give, by the book (docs/tags.md, "Type 3 tags"): the content, or the error code and
/// offset.
func expectedOutcome(_ card: MemoryCard, idmGiven: Bool) -> Result<TagReading.Content, NFCTagError> {
    // Without the NDEF system nothing answers for it; Polling cannot go through FF 46.
    guard card.hasNDEFSystem, idmGiven || card.path != .identiv else { return .success(.absent) }
    let refused = { (start: Int, count: Int) -> NFCTagError? in
        guard count <= card.maxRead else { return NFCTagError(.unexpectedStatus, offset: start * 16, "A2") }
        guard start + count <= card.blockCount else { return NFCTagError(.unexpectedStatus, offset: start * 16, "A8") }
        return nil
    }
    if let error = refused(0, 1) { return .failure(error) }
    let block0 = card.memory[0..<16]
    guard block0.contains(where: { $0 != 0 }) else { return .success(.absent) }
    let attribute: Type3AttributeBlock
    do { attribute = try Type3AttributeBlock(block0) } catch { return .failure(error) }
    guard attribute.length > 0 else { return .success(.empty) }
    let blocks = (attribute.length + 15) / 16
    let perCommand = min(attribute.maxReadBlocks, 12)
    for start in stride(from: 1, through: blocks, by: perCommand) {
        if let error = refused(start, min(perCommand, blocks + 1 - start)) { return .failure(error) }
    }
    return .success(.message(Array(card.memory[16..<(16 + attribute.length)])))
}

func fuzzMemory(_ card: MemoryCard, idmGiven: Bool) {
    let idm = idmGiven ? card.idm : nil
    let atr = card.atr
    let result = runBlocking { try await Type3Reader().read(from: card, atr: atr, idm: idm) }
    let expected = expectedOutcome(card, idmGiven: idmGiven)
    switch (result, expected) {
    case (.success(let content), .success(let wanted)):
        check(content == wanted, "read \(content), the card holds \(wanted)")
    case (.failure(let error as NFCTagError), .failure(let wanted)):
        check(error.code == wanted.code && error.offset == wanted.offset, "read threw \(error), expected \(wanted)")
    default:
        check(false, "read \(result), expected \(expected)")
    }

    // Nothing asked for past the message the attribute block declares, nor more blocks than Nbr a command.
    let attribute = card.blockCount > 0 ? try? Type3AttributeBlock(card.memory[0..<16]) : nil
    let lastBlock = attribute.map { ($0.length + 15) / 16 } ?? 0
    for blocks in card.reads {
        check(blocks.allSatisfy { $0 <= lastBlock }, "asked for blocks \(blocks), the message ends in \(lastBlock)")
        check(
            blocks.count <= max(1, min(attribute?.maxReadBlocks ?? 1, 12)),
            "asked for \(blocks.count) blocks, Nbr \(attribute?.maxReadBlocks ?? 0)")
    }
}

/// A card answering from a script.
final class ScriptedCard: CardChannel, @unchecked Sendable {
    let script: ScriptChannel
    init(_ script: ScriptChannel) { self.script = script }
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { try script.answer(command) }
}

func fuzzScript(_ input: FuzzInput, size: Int) {
    var input = input
    let options = input.byte() ?? 0
    let atr = options & 1 == 0 ? acr122uATR : acr1252uATR
    let idm: [UInt8]? = options & 2 == 0 ? [0x01, 0x27, 0x00, 0x5D, 0x1A, 0x2B, 0x3C, 0x4D] : nil
    let script = ScriptChannel(input)
    let result = runBlocking { try await Type3Reader().read(from: ScriptedCard(script), atr: atr, idm: idm) }
    check(script.commands.count <= size, "\(script.commands.count) commands from a \(size)-byte input")
    switch result {
    case .success(.message(let message)):
        check(
            message.count <= script.dataBytesAnswered,
            "\(message.count)-byte message from \(script.dataBytesAnswered) bytes")
    case .success:
        break
    case .failure(let error as NFCTagError):
        // Offsets name an attribute block byte or the first byte of the blocks a command asked for.
        let largest = 16 * (1 + 12 * script.commands.count)
        check((error.offset ?? 0) >= 0 && (error.offset ?? 0) <= largest, "error offset in \(error)")
    case .failure(let error):
        check(false, "not an NFCTagError: \(error)")
    }
}
