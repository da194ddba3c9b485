import FuzzSupport
import NFCTag

/// Type 5 capability containers and reads driven by a fuzzed tag. The first byte picks the tag:
/// - even: a tag whose memory is the rest of the input, answering `FF B0` one block per command (bit 1: 8-byte
///   blocks; bit 2: a reader taking the block number in P1). Invariants: the CC parser agrees with its bytes or
///   errs at an offset inside the CC; the read terminates within the blocks of the memory plus retries, never
///   reads past the CC's data area (clamped) but for the block that holds its end, and a message is no longer
///   than the data area; with all of the data area there, the content (or error code and offset) equals
///   `Type5TLV.ndefMessage`.
/// - odd: a reader answering each command with the next length-prefixed chunk of the input. Invariants: a message
///   is no longer than the data the reader sent.
@_cdecl("fuzz_type5_reader_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        let blockSize = mode & 2 != 0 ? 8 : 4
        var memory = input.rest()
        // A P1 reader reads the OMNIKEY form of block n < 256 as block n × 256: past a memory of fewer than 256
        // blocks, which makes it refuse and the reader switch forms (larger memories are ambiguous by nature).
        if mode & 4 != 0 { memory = Array(memory.prefix(255 * blockSize)) }
        fuzzMemory(memory, blockSize: blockSize, blockInP1: mode & 4 != 0)
    } else {
        fuzzScript(input)
    }
    return 0
}

/// A Type 5 tag whose memory is `memory`.
final class MemoryTag: CardChannel, @unchecked Sendable {
    let memory: [UInt8]
    let blockSize: Int
    let blockInP1: Bool
    var commands = 0
    var highestByteRead = 0

    init(memory: [UInt8], blockSize: Int, blockInP1: Bool) {
        self.memory = memory
        self.blockSize = blockSize
        self.blockInP1 = blockInP1
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        commands += 1
        check(
            commands <= 2 * (memory.count / 4 + 4),
            "\(commands) commands for \(memory.count) bytes: the read does not end")
        check(command.count == 5 && command[0...1] == [0xFF, 0xB0], "not a READ: \(command)")
        let block = blockInP1 ? Int(command[3]) << 8 | Int(command[2]) : Int(command[2]) << 8 | Int(command[3])
        guard Int(command[4]) == blockSize else { return [0x6C, UInt8(blockSize)] }
        let start = block * blockSize
        guard start + blockSize <= memory.count else { return [0x6B, 0x00] }
        highestByteRead = max(highestByteRead, start + blockSize)
        return Array(memory[start..<(start + blockSize)]) + [0x90, 0x00]
    }
}

func fuzzMemory(_ memory: [UInt8], blockSize: Int, blockInP1: Bool) {
    let cc: Type5CapabilityContainer?
    do {
        cc = try Type5CapabilityContainer(memory[...])
        if let cc {
            check(cc.bytes.elementsEqual(memory.prefix(cc.size)), "CC \(cc.bytes) from \(memory.prefix(8))")
            check(cc.mlen > 0 && cc.majorVersion == 1, "accepted MLEN \(cc.mlen), version \(cc.majorVersion)")
        }
    } catch {
        check(error.code == .malformedCapabilityContainer, "CC error \(error.code)")
        check((error.offset ?? -1) >= 0 && (error.offset ?? 9) <= 8, "CC error offset \(error.offset ?? -1)")
        cc = nil
    }
    let tag = MemoryTag(memory: memory, blockSize: blockSize, blockInP1: blockInP1)
    let result = runBlocking { try await Type5Reader().read(from: tag) }
    guard let cc else { return }
    let dataArea = cc.dataAreaSize(blockSize: blockSize)
    let end = cc.size + dataArea
    check(
        tag.highestByteRead <= max((end + blockSize - 1) / blockSize * blockSize, 8),
        "read up to byte \(tag.highestByteRead), data area ends at \(end)")
    if case .success(.message(let message)) = result {
        check(message.count <= dataArea, "\(message.count)-byte message, data area \(dataArea)")
    }
    // The whole data area is there: the read agrees with the dump parser over the same bytes.
    guard cc.isReadable, memory.count >= (end + blockSize - 1) / blockSize * blockSize, dataArea > 0 else { return }
    let expected = Result { try Type5TLV.ndefMessage(inDataArea: Array(memory[cc.size..<end]), ccSize: cc.size) }
    switch (result, expected) {
    case (.success(let content), .success(let parsed)):
        check(content == parsed, "read \(content), dump parser \(parsed)")
    case (.failure(let error as NFCTagError), .failure(let parsed as NFCTagError)):
        check(error.code == parsed.code && error.offset == parsed.offset, "read threw \(error), dump \(parsed)")
    default:
        check(false, "read \(result), dump parser \(expected)")
    }
}

/// A reader answering from a script.
final class ScriptedTag: CardChannel, @unchecked Sendable {
    let script: ScriptChannel
    init(_ script: ScriptChannel) { self.script = script }
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { try script.answer(command) }
}

func fuzzScript(_ input: FuzzInput) {
    let script = ScriptChannel(input)
    let result = runBlocking { try await Type5Reader().read(from: ScriptedTag(script)) }
    guard case .success(.message(let message)) = result else { return }
    check(
        message.count <= script.dataBytesAnswered,
        "\(message.count)-byte message from \(script.dataBytesAnswered) bytes")
}
