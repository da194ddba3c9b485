import FuzzSupport
import NFCTag

/// Type 1 (Topaz) reads driven by a fuzzed tag. The first byte picks the tag:
/// - even: a tag whose 512-byte memory is the rest of the input (zero-padded), answering the PN532 direct
///   transmits READ ALL, READ and WRITE-E like `VirtualTag`'s `Type1Card`; HR0 from bits 1-2 (`12` Topaz 512, `11`
///   Topaz 96, or the high nibble of the first byte). Invariants: one command, READ ALL, and no write; a message,
///   empty or absent result or a TLV error equals `Type1TLV.ndefMessage` over the same data area (HR0 `11`: bytes
///   12-103; `12`: 8 × (TMS + 1) − 36 bytes from byte 12, of which READ ALL shows up to byte 103); the read refuses
///   (`messageTooLarge` at byte 104) only when the data area goes past byte 103, and a message is at most 90 bytes.
/// - odd: a tag answering each command with the next length-prefixed chunk of the input. Invariants: at most one
///   command; a message is at most 90 bytes and no longer than the data bytes the tag sent.
@_cdecl("fuzz_type1_reader_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        let hr0: UInt8 =
            switch (mode >> 1) & 3 {
            case 1: 0x11
            case 3: mode & 0xF0
            default: 0x12
            }
        fuzzMemory(input.rest(), hr0: hr0)
    } else {
        fuzzScript(input)
    }
    return 0
}

/// The READ ALL command `Type1Reader` sends.
let readAll: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x40, 0x01, 0x00]
/// The most message bytes bytes 12-103 hold: the NDEF TLV's tag and length take two.
let largestMessage = 104 - 12 - 2

/// A Topaz whose memory is given, answering as `Sources/VirtualTag/Type1Card.swift` does.
final class MemoryTag: CardChannel, @unchecked Sendable {
    let memory: [UInt8]
    let hr0: UInt8
    var commands: [[UInt8]] = []

    init(memory: [UInt8], hr0: UInt8) {
        self.memory = Array((memory + [UInt8](repeating: 0, count: 512)).prefix(512))
        self.hr0 = hr0
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        commands.append(command)
        check(commands.count == 1, "\(commands.count) commands: READ ALL shows everything the reader uses")
        check(command == readAll, "not READ ALL: \(command)")
        // Type1Card's answers, for any PN532 frame.
        guard command.count >= 9, command[0...1] == [0xFF, 0x00], command[5...7] == [0xD4, 0x40, 0x01] else {
            return [0x63, 0x00]
        }
        let frame = Array(command[8...])
        switch (frame[0], frame.count) {
        case (0x00, 1):
            return [0xD5, 0x41, 0x00, hr0, 0x4C] + memory[0..<120] + [0x90, 0x00]
        case (0x01, 2) where frame[1] < 120:
            return [0xD5, 0x41, 0x00, frame[1], memory[Int(frame[1])], 0x90, 0x00]
        default:
            return [0xD5, 0x41, 0x01, 0x90, 0x00]
        }
    }
}

func fuzzMemory(_ bytes: [UInt8], hr0: UInt8) {
    let tag = MemoryTag(memory: bytes, hr0: hr0)
    let result = runBlocking { try await Type1Reader().read(from: tag) }
    check(tag.commands.count == 1, "\(tag.commands.count) commands")
    let memory = tag.memory

    // What the tag holds, by the book (docs/tags.md, "Type 1 tags").
    if case .success(.message(let message)) = result {
        check(message.count <= largestMessage, "\(message.count)-byte message")
    }
    guard hr0 >> 4 == 1 else {
        check(failure(result)?.code == .unexpectedResponse, "HR0 \(hr0) read as \(result)")
        return
    }
    guard memory[8] == 0xE1 else {
        check(isSuccess(result, .absent), "no E1 at byte 8, read as \(result)")
        return
    }
    guard memory[9] >> 4 == 1 else {
        let error = failure(result)
        check(error?.code == .malformedCapabilityContainer && error?.offset == 9, "version \(memory[9]): \(result)")
        return
    }
    guard memory[11] >> 4 == 0 else {
        let error = failure(result)
        check(error?.code == .readAccessDenied && error?.offset == 11, "access \(memory[11]): \(result)")
        return
    }
    let dataAreaSize = hr0 == 0x11 ? 92 : max(0, min(8 * (Int(memory[10]) + 1), 512) - 36)
    let expected = Result { try Type1TLV.ndefMessage(inDataArea: Array(memory[12..<(12 + dataAreaSize)])) }
    if let error = failure(result), error.code == .messageTooLarge {
        // Only a data area past READ ALL's bytes may need more than it shows.
        check(dataAreaSize > 92 && error.offset == 104, "refused \(error) with a \(dataAreaSize)-byte data area")
        return
    }
    switch (result, expected) {
    case (.success(let content), .success(let parsed)):
        check(content == parsed, "read \(content), dump parser \(parsed)")
    case (.failure(let error as NFCTagError), .failure(let parsed as NFCTagError)):
        check(error.code == parsed.code && error.offset == parsed.offset, "read threw \(error), dump \(parsed)")
    default:
        check(false, "read \(result), dump parser \(expected)")
    }
}

/// The `NFCTagError` a read threw, if it threw one; any other error breaks the invariants.
func failure(_ result: Result<TagReading.Content, any Error>) -> NFCTagError? {
    guard case .failure(let error) = result else { return nil }
    guard let error = error as? NFCTagError else {
        check(false, "not an NFCTagError: \(error)")
        return nil
    }
    return error
}

/// Whether a read returned `content`.
func isSuccess(_ result: Result<TagReading.Content, any Error>, _ content: TagReading.Content) -> Bool {
    if case .success(let read) = result { return read == content }
    return false
}

/// A tag answering from a script.
final class ScriptedTag: CardChannel, @unchecked Sendable {
    let script: ScriptChannel
    init(_ script: ScriptChannel) { self.script = script }
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { try script.answer(command) }
}

func fuzzScript(_ input: FuzzInput) {
    let script = ScriptChannel(input)
    let result = runBlocking { try await Type1Reader().read(from: ScriptedTag(script)) }
    check(script.commands.count <= 1, "\(script.commands.count) commands")
    if let error = failure(result), let offset = error.offset {
        check(offset >= 9 && offset <= 104, "error offset \(offset): \(error)")
    }
    guard case .success(.message(let message)) = result else { return }
    check(message.count <= largestMessage, "\(message.count)-byte message")
    check(
        message.count <= script.dataBytesAnswered,
        "\(message.count)-byte message from \(script.dataBytesAnswered) bytes")
}
