/// A card the emulator presents: its ATR and how it answers command APDUs.
///
/// Cards are values; the emulator keeps one copy per presentation and mutates it as commands arrive
/// (a Type 4 card remembers the selected file, writes change memory).
public protocol VirtualCard: Sendable {
    /// The ATR pcscd reports for the card (the one a contactless reader synthesises for its kind).
    var atr: [UInt8] { get }

    /// Answers one command APDU.
    /// - Parameter command: the command APDU as the reader sent it.
    /// - Returns: the response APDU, data followed by SW1 SW2.
    mutating func respond(to command: [UInt8]) -> [UInt8]

    /// The reader powered the card off, on or reset it: forget volatile state (selections).
    mutating func powerCycled()
}

extension VirtualCard {
    /// Cards without volatile state need not do anything on a power cycle.
    public mutating func powerCycled() {}
}

/// ATR construction shared by the cards.
enum ATR {
    /// `3B 8n 80 01 <historical bytes> TCK`: the ATR a PC/SC contactless reader builds (Part 3).
    /// - Parameter historicalBytes: at most 15 bytes.
    static func contactless(historicalBytes: [UInt8]) -> [UInt8] {
        var atr: [UInt8] = [0x3B, 0x80 | UInt8(historicalBytes.count & 0x0F), 0x80, 0x01] + historicalBytes
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }

    /// The storage-card ATR: `3B 8F 80 01 80 4F 0C A0 00 00 03 06 <standard> <name(2)> 00 00 00 00 TCK`.
    static func storageCard(standard: UInt8, cardName: UInt16) -> [UInt8] {
        contactless(historicalBytes: [
            0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, standard, UInt8(cardName >> 8),
            UInt8(cardName & 0xFF), 0x00, 0x00, 0x00, 0x00,
        ])
    }
}

/// Status words the cards answer with.
enum StatusWord {
    static let ok: [UInt8] = [0x90, 0x00]
    static let endOfFile: [UInt8] = [0x62, 0x82]
    static let failed: [UInt8] = [0x63, 0x00]
    static let wrongLength: [UInt8] = [0x67, 0x00]
    static let noCurrentFile: [UInt8] = [0x69, 0x86]
    static let functionNotSupported: [UInt8] = [0x6A, 0x81]
    static let notFound: [UInt8] = [0x6A, 0x82]
    static let wrongParameters: [UInt8] = [0x6B, 0x00]
    static let insNotSupported: [UInt8] = [0x6D, 0x00]
    static let claNotSupported: [UInt8] = [0x6E, 0x00]
    static let securityNotSatisfied: [UInt8] = [0x69, 0x82]
}
