public import NFCTag
import Synchronization

/// A Type 4 card behind a PC/SC reader, as two files: answers SELECT of the NDEF application (v2 or v1, as
/// configured), SELECT of files by identifier and READ BINARY from the selected file and UPDATE BINARY of the NDEF file, the way ISO 7816-4 cards
/// do (`6A 82` for an unknown AID or file, `6B 00` for an offset past the end, fewer bytes with `62 82` when
/// the file ends before Le).
public final class Type4CardFake: CardChannel {
    /// The CC file (E103) contents.
    public let ccFile: [UInt8]
    /// The NDEF file contents, as written so far.
    public var ndefFile: [UInt8] { state.withLock { $0.ndefFile } }
    /// The NDEF file identifier.
    public let ndefFileID: [UInt8]
    /// Whether the card answers the v2 AID (else only v1).
    public let answersVersion2: Bool
    private let state: Mutex<(selected: [UInt8]?, sent: [[UInt8]], ndefFile: [UInt8])>

    /// Creates a card.
    /// - Parameters:
    ///   - ccFile: the CC file.
    ///   - ndefFile: the NDEF file (NLEN then the message, padded as the card has it).
    ///   - ndefFileID: the NDEF file identifier.
    ///   - answersVersion2: false for a mapping v1.0 card.
    public init(ccFile: [UInt8], ndefFile: [UInt8], ndefFileID: [UInt8] = [0xE1, 0x04], answersVersion2: Bool = true) {
        self.ccFile = ccFile
        self.state = Mutex((nil, [], ndefFile))
        self.ndefFileID = ndefFileID
        self.answersVersion2 = answersVersion2
    }

    /// The commands received so far.
    public var sent: [[UInt8]] { state.withLock { $0.sent } }

    /// Answers a command.
    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        state.withLock { state in
            state.sent.append(command)
            if command == [0xFF, 0xCA, 0x00, 0x00, 0x00] { return [0x01, 0x02, 0x03, 0x04, 0x90, 0x00] }
            guard command.count >= 5, command[0] == 0x00 else { return [0x6E, 0x00] }
            switch (command[1], command[2]) {
            case (0xA4, 0x04):
                let aid = Array(command.dropFirst(5).prefix(Int(command[4])))
                let v2: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
                let v1: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]
                return (aid == v2 && answersVersion2) || (aid == v1 && !answersVersion2) ? [0x90, 0x00] : [0x6A, 0x82]
            case (0xA4, 0x00):
                let fid = Array(command.dropFirst(5).prefix(Int(command[4])))
                guard fid == [0xE1, 0x03] || fid == ndefFileID else { return [0x6A, 0x82] }
                state.selected = fid
                return [0x90, 0x00]
            case (0xB0, _):
                guard let selected = state.selected else { return [0x69, 0x86] }
                let file = selected == [0xE1, 0x03] ? ccFile : state.ndefFile
                let offset = Int(command[2]) << 8 | Int(command[3])
                let le = command[4] == 0 ? 256 : Int(command[4])
                guard offset < file.count else { return [0x6B, 0x00] }
                let end = min(file.count, offset + le)
                return Array(file[offset..<end]) + (end - offset < le ? [0x62, 0x82] : [0x90, 0x00])
            case (0xD6, _):
                // UPDATE BINARY of the NDEF file; the CC file is never written.
                guard state.selected == ndefFileID else { return [0x69, 0x86] }
                let offset = Int(command[2]) << 8 | Int(command[3])
                let data = Array(command.dropFirst(5).prefix(Int(command[4])))
                guard offset + data.count <= state.ndefFile.count else { return [0x6B, 0x00] }
                state.ndefFile.replaceSubrange(offset..<(offset + data.count), with: data)
                return [0x90, 0x00]
            default:
                return [0x6D, 0x00]
            }
        }
    }
}
