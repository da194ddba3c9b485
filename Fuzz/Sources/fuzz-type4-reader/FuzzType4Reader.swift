import FuzzSupport
import NFCTag

/// Type 4 reads driven by a fuzzed card. The first byte picks the card:
/// - even: a card with an NDEF application whose CC file is the next length-prefixed chunk and whose NDEF file
///   is the rest, answering SELECT and READ BINARY correctly (bit 1: only the mapping v1 AID selects).
///   Invariants: the read terminates within a bounded number of commands; a message is exactly the NDEF
///   file's bytes after NLEN, NLEN long, and no longer than the CC's maximum file size minus NLEN.
/// - odd: a card answering each command with the next length-prefixed chunk of the input. Invariant: a
///   message is no longer than the reader's limit nor than the data the card sent.
@_cdecl("fuzz_type4_reader_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        let ccFile = input.chunk() ?? []
        fuzzFiles(ccFile: ccFile, ndefFile: input.rest(), onlyVersion1: mode & 2 != 0)
    } else {
        fuzzScript(input)
    }
    return 0
}

/// A Type 4 card with a CC file and an NDEF file.
final class FileCard: CardChannel, @unchecked Sendable {
    let ccFile: [UInt8]
    let ndefFile: [UInt8]
    let onlyVersion1: Bool
    var selected: [UInt8]?
    var commands = 0

    init(ccFile: [UInt8], ndefFile: [UInt8], onlyVersion1: Bool) {
        self.ccFile = ccFile
        self.ndefFile = ndefFile
        self.onlyVersion1 = onlyVersion1
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        commands += 1
        check(commands <= 1000, "more than 1000 commands: the read does not end")
        check(command.count >= 5, "a command of \(command.count) bytes")
        switch (command[1], command[2]) {
        case (0xA4, 0x04):
            let isVersion1 = command.count >= 12 && command[11] == 0x00
            return isVersion1 == onlyVersion1 ? [0x90, 0x00] : [0x6A, 0x82]
        case (0xA4, 0x00):
            check(command.count >= 7, "SELECT FILE of \(command.count) bytes")
            let id = Array(command[5...6])
            if id == [0xE1, 0x03] {
                selected = ccFile
            } else if ccFile.count >= 11, id == Array(ccFile[9...10]) {
                selected = ndefFile
            } else {
                return [0x6A, 0x82]
            }
            return [0x90, 0x00]
        case (0xB0, _):
            guard let file = selected else { return [0x69, 0x86] }
            let offset = Int(command[2]) << 8 | Int(command[3])
            let le = command[4] == 0 ? 256 : Int(command[4])
            guard offset < file.count else { return [0x6B, 0x00] }
            let end = min(offset + le, file.count)
            return Array(file[offset..<end]) + (end - offset < le ? [0x62, 0x82] : [0x90, 0x00])
        default:
            return [0x6D, 0x00]
        }
    }
}

func fuzzFiles(ccFile: [UInt8], ndefFile: [UInt8], onlyVersion1: Bool) {
    let card = FileCard(ccFile: ccFile, ndefFile: ndefFile, onlyVersion1: onlyVersion1)
    let result = runBlocking { try await Type4Reader().read(from: card) }
    guard case .success(.message(let message)) = result else { return }
    guard let cc = try? Type4CapabilityContainer(Array(ccFile.prefix(17))) else {
        check(false, "a message from a card whose CC file does not parse")
        return
    }
    // An NDEF file ID of E1 03 names the CC file itself (the card selects the CC file first).
    let file = cc.fileID == [0xE1, 0x03] ? ccFile : ndefFile
    var nlen = 0
    for byte in file.prefix(cc.nlenSize) { nlen = nlen << 8 | Int(byte) }
    check(message.count == nlen, "\(message.count)-byte message, NLEN \(nlen)")
    check(message.count <= cc.maxFileSize - cc.nlenSize, "\(message.count)-byte message, file \(cc.maxFileSize)")
    check(message[...] == file.dropFirst(cc.nlenSize).prefix(nlen), "the message is not the file's bytes")
}

/// A card answering from a script.
final class ScriptedCard: CardChannel, @unchecked Sendable {
    let script: ScriptChannel
    init(_ script: ScriptChannel) { self.script = script }
    func transmit(_ command: [UInt8]) async throws -> [UInt8] { try script.answer(command) }
}

func fuzzScript(_ input: FuzzInput) {
    let script = ScriptChannel(input)
    let reader = Type4Reader()
    let result = runBlocking { try await reader.read(from: ScriptedCard(script)) }
    guard case .success(.message(let message)) = result else { return }
    check(message.count <= reader.maxMessageSize, "\(message.count)-byte message")
    check(
        message.count <= script.dataBytesAnswered,
        "\(message.count)-byte message from \(script.dataBytesAnswered) bytes")
}
