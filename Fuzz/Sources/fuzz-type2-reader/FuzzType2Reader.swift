import FuzzSupport
import NFCTag

/// Type 2 reads driven by a fuzzed card. The first byte picks the card:
/// - even: a tag whose memory is the rest of the input (from tag byte 0), answering READ BINARY correctly
///   (bit 1 set: refusing Le 16 with `67 00` the way one-page readers do). Invariants: the read terminates
///   within a bounded number of commands, reads nothing past the CC's data area but the first 16-byte read, and gives the same content as
///   `Type2TLV.ndefMessage(inDataArea:)` on the same data area; a message is never longer than the data area.
/// - odd: a card answering each command with the next length-prefixed chunk of the input. Invariants: a
///   message is no longer than the CC's data area (byte 2 × 8 of the first successful answer), nor than the data the card
///   sent.
@_cdecl("fuzz_type2_reader_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        fuzzMemory(input.rest(), refusesLe16: mode & 2 != 0)
    } else {
        fuzzScript(input)
    }
    return 0
}

/// A Type 2 tag whose memory is `memory`.
final class MemoryTag: CardChannel, @unchecked Sendable {
    let memory: [UInt8]
    let refusesLe16: Bool
    var commands = 0
    var highestByteRead = 0

    init(memory: [UInt8], refusesLe16: Bool) {
        self.memory = memory
        self.refusesLe16 = refusesLe16
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        commands += 1
        check(commands <= 2 * 2048, "more than \(2 * 2048) commands: the read does not end")
        check(command.count == 5 && command[0...1] == [0xFF, 0xB0], "not a READ BINARY: \(command)")
        let start = (Int(command[2]) << 8 | Int(command[3])) * 4
        let le = Int(command[4])
        if refusesLe16 && le > 4 { return [0x67, 0x00] }
        let end = min(start + le, memory.count) / 4 * 4
        guard start < end else { return [0x6B, 0x00] }
        highestByteRead = max(highestByteRead, end)
        return Array(memory[start..<end]) + [0x90, 0x00]
    }
}

func fuzzMemory(_ memory: [UInt8], refusesLe16: Bool) {
    let tag = MemoryTag(memory: memory, refusesLe16: refusesLe16)
    let result = runBlocking { try await Type2Reader().read(from: tag) }
    let cc = memory.count >= 16 ? (try? Type2CapabilityContainer(memory[12..<16])) ?? nil : nil
    if let cc {
        check(tag.highestByteRead <= max(28, 16 + cc.dataAreaSize), "read up to byte \(tag.highestByteRead)")
    }
    guard let cc, cc.isReadable, memory.count >= 16 + cc.dataAreaSize else {
        if case .success(.message(let message)) = result, let cc {
            check(message.count <= cc.dataAreaSize, "\(message.count)-byte message, data area \(cc.dataAreaSize)")
        }
        return
    }
    // The whole data area is there: the read must agree with the dump parser.
    let dataArea = Array(memory[16..<(16 + cc.dataAreaSize)])
    let expected = Result { try Type2TLV.ndefMessage(inDataArea: dataArea) }
    switch (result, expected) {
    case (.success(let content), .success(let parsed)):
        check(content == parsed, "read \(content), dump parser \(parsed)")
        if case .message(let message) = content {
            check(message.count <= cc.dataAreaSize, "\(message.count)-byte message, data area \(cc.dataAreaSize)")
        }
    case (.failure(let error as NFCTagError), .failure(let parsed as NFCTagError)):
        check(error.code == parsed.code && error.offset == parsed.offset, "read threw \(error), dump \(parsed)")
    default:
        check(false, "read \(result), dump parser \(expected)")
    }
}

/// A card answering from a script.
final class ScriptedTag: CardChannel, @unchecked Sendable {
    let script: ScriptChannel
    init(_ script: ScriptChannel) { self.script = script }
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { try script.answer(command) }
}

func fuzzScript(_ input: FuzzInput) {
    let script = ScriptChannel(input)
    let result = runBlocking { try await Type2Reader().read(from: ScriptedTag(script)) }
    guard case .success(.message(let message)) = result else { return }
    // The CC is the first four bytes of the first answer that succeeded (a refused Le 16 comes before it).
    let first = script.answers.first { $0.count >= 6 && $0.suffix(2) == [0x90, 0x00] } ?? []
    check(first.count >= 6, "a message from a card that never answered 90 00 with data: \(script.answers)")
    check(message.count <= Int(first[2]) * 8, "\(message.count)-byte message, CC size byte \(first[2])")
    check(
        message.count <= script.dataBytesAnswered,
        "\(message.count)-byte message from \(script.dataBytesAnswered) bytes")
}
