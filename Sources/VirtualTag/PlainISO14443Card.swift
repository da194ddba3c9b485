/// An ISO 14443-4 card with no NDEF application (a bank card, a transit card): it gives its UID and refuses
/// every application selection with `6A 82`.
public struct PlainISO14443Card: VirtualCard {
    /// The UID answered to `FF CA 00 00 00` (4 bytes, random on real cards).
    public let uid: [UInt8]

    /// The ATR of an ISO 14443-4 card with one historical byte, `01` (`3B 81 80 01 01 01`).
    public var atr: [UInt8] { ATR.contactless(historicalBytes: [0x01]) }

    /// Creates the card.
    /// - Parameter uid: the UID.
    public init(uid: [UInt8] = [0x08, 0x3A, 0x5C, 0x11]) {
        self.uid = uid
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        switch (apdu.cla, apdu.ins) {
        case (0xFF, 0xCA):
            return apdu.uidAnswer(uid)
        case (0x00, 0xA4):
            return StatusWord.notFound
        default:
            return StatusWord.insNotSupported
        }
    }
}
