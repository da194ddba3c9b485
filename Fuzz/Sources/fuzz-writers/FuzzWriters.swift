import FuzzSupport
import NFCTag

/// `Type5Writer` and `Type3Writer` over an in-memory tag that may vanish in the middle of the write. The input:
/// a mode byte, the number of commands the tag answers before it vanishes (`FF`: it stays), the new message's
/// length (two bytes, big-endian, clipped to what is left) and bytes, then the tag's memory.
/// - mode bit 0 clear: a Type 5 tag (bit 1: 8-byte blocks; bit 2: a reader taking the block number in P1; bit 3:
///   UPDATE refused like a read-only tag).
/// - mode bit 0 set: a FeliCa card (bits 1-2: the ACR122U, ACR1252U or Identiv path; bits 3-5: the most blocks
///   the card writes per command, 1 to 15).
///
/// Invariants: the write ends; it succeeds, or fails with `tagRemoved` (the tag vanished), with
/// `malformedCapabilityContainer`, `readOnly`, `readAccessDenied` or `insufficientCapacity` leaving the memory
/// untouched, or with `unexpectedStatus` after the tag refused a command. Read back with the matching reader, the memory then holds
/// the old content (or the same error as before), or the new message, or in between an empty message (Type 5:
/// the NDEF TLV's length is written 0 first; Type 3: the attribute block is written with WriteF `0F` and Ln 0
/// first, which reads as empty); after a write that succeeded, exactly the new message.
@_cdecl("fuzz_writers_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte(), let budgetByte = input.byte() else { return 0 }
    let budget = budgetByte == 0xFF ? nil : Int(budgetByte)
    let length = Int(input.byte() ?? 0) << 8 | Int(input.byte() ?? 0)
    var message: [UInt8] = []
    for _ in 0..<length {
        guard let byte = input.byte() else { break }
        message.append(byte)
    }
    let memory = input.rest()
    if mode & 1 == 0 {
        let blockSize = mode & 2 != 0 ? 8 : 4
        let blockInP1 = mode & 4 != 0
        // As in fuzz-type5-reader: a P1 reader's memory stays under 256 blocks, where the two forms differ.
        let bytes = Array((blockInP1 ? memory.prefix(255 * blockSize) : memory[...]).prefix(4096))
        fuzzType5(
            message,
            Type5MemoryTag(
                memory: bytes, blockSize: blockSize, blockInP1: blockInP1, isReadOnly: mode & 8 != 0, budget: budget))
    } else {
        let path = [FeliCaMemoryCard.Path.acr122u, .acr1252u, .identiv, .acr1252u][Int(mode >> 1) & 3]
        let maxWrite = [1, 2, 3, 4, 6, 8, 12, 15][Int(mode >> 3) & 7]
        fuzzType3(message, FeliCaMemoryCard(memory: memory, path: path, maxWrite: maxWrite, budget: budget))
    }
    return 0
}

/// What a read gave: the content, or the error's code and offset.
enum Outcome: Equatable, CustomStringConvertible {
    case content(TagReading.Content)
    case error(NFCTagError.Code, Int?)

    init(_ result: Result<TagReading.Content, any Error>) {
        switch result {
        case .success(let content):
            self = .content(content)
        case .failure(let error as NFCTagError):
            self = .error(error.code, error.offset)
        case .failure(let error):
            check(false, "a read threw \(error), not an NFCTagError")
            self = .error(.tagRemoved, nil)
        }
    }

    /// What a tag holding `message` reads as.
    static func holding(_ message: [UInt8]) -> Outcome { .content(message.isEmpty ? .empty : .message(message)) }

    var description: String {
        switch self {
        case .content(let content): "\(content)"
        case .error(let code, let offset): "\(code) at \(offset.map(String.init) ?? "-")"
        }
    }
}

/// Checks a write's result and what the tag holds after it.
/// - Parameters:
///   - result: what the writer returned or threw.
///   - vanishing: the tag's command count.
///   - untouched: whether the memory is as it was.
///   - after: what the tag reads as now.
///   - allowed: what it may read as after an interrupted write.
///   - new: what it must read as after a complete write.
func checkWrite(
    _ result: Result<Void, any Error>, vanishing: Vanishing, untouched: Bool, after: Outcome, allowed: [Outcome],
    new: Outcome
) {
    switch result {
    case .success:
        check(vanishing.budget.map { vanishing.commands <= $0 } ?? true, "the write succeeded on a vanished tag")
        check(after == new, "a complete write reads back \(after), not \(new)")
        return
    case .failure(let error as NFCTagError):
        switch error.code {
        case .tagRemoved:
            check(vanishing.budget.map { vanishing.commands > $0 } ?? false, "tag removed, yet it stayed: \(error)")
        case .unexpectedStatus:
            check(vanishing.refused, "\(error), yet the tag refused nothing")
        case .malformedCapabilityContainer, .readOnly, .readAccessDenied, .insufficientCapacity:
            check(untouched, "\(error), and the tag was changed: it reads as \(after)")
        default:
            check(false, "the write threw \(error)")
        }
    case .failure(let error):
        check(false, "the write threw \(error), not an NFCTagError")
    }
    check(allowed.contains(after), "after an interrupted write the tag reads as \(after), not one of \(allowed)")
}

func fuzzType5(_ message: [UInt8], _ tag: Type5MemoryTag) {
    let initial = tag.memory
    let read = { (memory: [UInt8]) -> Outcome in
        let fresh = Type5MemoryTag(
            memory: memory, blockSize: tag.blockSize, blockInP1: tag.blockInP1, isReadOnly: true, budget: nil)
        return Outcome(runBlocking { try await Type5Reader().read(from: fresh) })
    }
    let old = read(initial)
    let result = runBlocking { try await Type5Writer().write(message, to: tag) }
    let new = Outcome.holding(message)
    checkWrite(
        result, vanishing: tag.vanishing, untouched: tag.memory == initial, after: read(tag.memory),
        allowed: [old, .content(.empty), new], new: new)
}

func fuzzType3(_ message: [UInt8], _ card: FeliCaMemoryCard) {
    let initial = card.memory
    let read = { (memory: [UInt8]) -> Outcome in
        let fresh = FeliCaMemoryCard(memory: memory, path: card.path, maxWrite: card.maxWrite, budget: nil)
        let atr = fresh.atr
        let idm = fresh.idm
        return Outcome(runBlocking { try await Type3Reader().read(from: fresh, atr: atr, idm: idm) })
    }
    let old = read(initial)
    let atr = card.atr
    let result = runBlocking { try await Type3Writer().write(message, to: card, atr: atr) }
    let new = Outcome.holding(message)
    // In between, WriteF 0F with Ln 0 reads as empty (the writer's first step); never torn.
    checkWrite(
        result, vanishing: card.vanishing, untouched: card.memory == initial, after: read(card.memory),
        allowed: [old, .content(.empty), new], new: new)
}
