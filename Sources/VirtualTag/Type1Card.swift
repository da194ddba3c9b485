/// An emulated Topaz 512 (NFC Forum Type 1, dynamic layout) on an ACS ACR122U (docs/tags.md, "Type 1 tags"):
/// ATR card name `F0 04`; `FF CA 00 00 00` gives the 4-byte UID; the PN532's InDataExchange
/// `FF 00 00 00 Lc D4 40 01 <command>` carries READ ALL (`00`), answered `D5 41 00 HR0 HR1 <bytes 0-119> 90 00`,
/// READ (`01 <address>`) → `D5 41 00 <address> <byte> 90 00` and WRITE-E (`53 <address> <byte>`) →
/// `D5 41 00 <address> <byte> 90 00`. Any other Type 1 command gets the PN532's timeout, `D5 41 01 90 00`.
public struct Type1Card: VirtualCard {
    /// HR0 of a Topaz 512 (`12`, dynamic memory) and HR1.
    static let header: [UInt8] = [0x12, 0x4C]
    /// The message capacity: bytes 12-103 less the NDEF TLV header and terminator.
    public static let capacity = 104 - 12 - 2 - 1

    /// The UID (UID0-UID3 of block 0).
    public let uid: [UInt8]
    /// The memory from byte 0 (512 bytes).
    public private(set) var memory: [UInt8]

    /// The ATR an ACR122U synthesises for a Topaz.
    public var atr: [UInt8] { ATR.storageCard(standard: 0x03, cardName: 0xF004) }

    /// Builds a Topaz 512 holding `message` in an NDEF TLV at byte 12, after the CC `E1 10 3F 00`.
    /// - Throws: ``VirtualTagError/messageTooLarge(tag:size:capacity:)`` past byte 103.
    public init(message: [UInt8], uid: [UInt8] = [0x3A, 0x81, 0x5C, 0x0D]) throws(VirtualTagError) {
        guard message.count <= Self.capacity else {
            throw .messageTooLarge(tag: "type1", size: message.count, capacity: Self.capacity)
        }
        self.uid = uid
        var memory = uid + [0x00, 0x00, 0x00, 0x00] + [0xE1, 0x10, 0x3F, 0x00]
        memory += [0x03, UInt8(message.count)] + message + [0xFE]
        self.memory = memory + [UInt8](repeating: 0, count: 512 - memory.count)
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        guard apdu.cla == 0xFF else { return StatusWord.claNotSupported }
        switch apdu.ins {
        case 0xCA:
            return apdu.uidAnswer(uid)
        case 0x00:
            guard apdu.data.count >= 4, apdu.data.prefix(3).elementsEqual([0xD4, 0x40, 0x01]) else {
                return StatusWord.failed
            }
            let frame = Array(apdu.data.dropFirst(3))
            switch (frame[0], frame.count) {
            case (0x00, 1):
                return [0xD5, 0x41, 0x00] + Self.header + memory[0..<120] + StatusWord.ok
            case (0x01, 2) where frame[1] < 120:
                return [0xD5, 0x41, 0x00, frame[1], memory[Int(frame[1])]] + StatusWord.ok
            case (0x53, 3) where frame[1] >= 8 && frame[1] < 104:
                memory[Int(frame[1])] = frame[2]
                return [0xD5, 0x41, 0x00, frame[1], frame[2]] + StatusWord.ok
            default:
                return [0xD5, 0x41, 0x01] + StatusWord.ok
            }
        default:
            return StatusWord.insNotSupported
        }
    }
}
