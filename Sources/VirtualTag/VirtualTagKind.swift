import NFCTag

/// The tags `tagrouter emulate --tag` offers, each in its factory layout (the `-blank` ones hold no message).
public enum VirtualTagKind: String, Sendable, Hashable, CaseIterable {
    /// NTAG213 (Type 2, 144 bytes, factory Lock Control TLV).
    case ntag213
    /// NTAG215 (Type 2, 496-byte data area).
    case ntag215
    /// NTAG216 (Type 2, 872-byte data area).
    case ntag216
    /// MIFARE Ultralight (Type 2, 48 bytes).
    case ultralight
    /// A Type 4 tag: NDEF application v2, MLe 255, standard file.
    case type4
    /// An NTAG 424 DNA (Type 4) as it leaves the factory (``Type4Card/ntag424(message:uid:)``, keys zero, ready for
    /// `tagrouter write --sun`); with SUN keys, one that mirrors a fresh SUN message on every read
    /// (``Type4Card/sun(uri:uid:metaReadKey:fileReadKey:counter:fileData:macInput:randomID:)``).
    case ntag424
    /// MIFARE Classic 1K, NDEF formatted (MAD, public keys).
    case classic1k
    /// MIFARE Classic 4K, NDEF formatted (MAD1 and MAD2).
    case classic4k
    /// MIFARE Classic Mini, NDEF formatted.
    case classicmini
    /// MIFARE Classic 1K as it leaves the factory (keys `FFFFFFFFFFFF`, no MAD): a door fob, UID only.
    case classic1kBlank = "classic1k-blank"
    /// MIFARE Classic 4K as it leaves the factory.
    case classic4kBlank = "classic4k-blank"
    /// MIFARE Classic Mini as it leaves the factory.
    case classicminiBlank = "classicmini-blank"
    /// A Type 5 tag (ISO 15693): ICODE SLIX2, 80 blocks of 4 bytes, four-byte CC, on an OMNIKEY-style reader.
    case type5
    /// A FeliCa Lite-S (Type 3, 208 bytes) on an ACR122U.
    case felica
    /// A Topaz 512 (Type 1) on an ACR122U; messages up to 89 bytes.
    case type1

    /// Builds the card holding `message`.
    /// - Parameter message: the NDEF message bytes.
    /// - Returns: the card, ready to present.
    /// - Throws: ``VirtualTagError/messageTooLarge(tag:size:capacity:)`` when the message does not fit.
    public func card(holding message: [UInt8]) throws(VirtualTagError) -> any VirtualCard {
        switch self {
        case .ntag213: try Type2Card(model: .ntag213, message: message)
        case .ntag215: try Type2Card(model: .ntag215, message: message)
        case .ntag216: try Type2Card(model: .ntag216, message: message)
        case .ultralight: try Type2Card(model: .ultralight, message: message)
        case .type4: try Type4Card(message: message)
        case .ntag424: try Type4Card.ntag424(message: message)
        case .classic1k: try MifareClassicCard(model: .classic1K, message: message)
        case .classic4k: try MifareClassicCard(model: .classic4K, message: message)
        case .classicmini: try MifareClassicCard(model: .mini, message: message)
        case .classic1kBlank: MifareClassicCard.factoryFresh(model: .classic1K)
        case .classic4kBlank: MifareClassicCard.factoryFresh(model: .classic4K)
        case .classicminiBlank: MifareClassicCard.factoryFresh(model: .mini)
        case .type5: try Type5Card(message: message)
        case .felica: try FeliCaCard(message: message)
        case .type1: try Type1Card(message: message)
        }
    }

    /// Whether the kind is a factory-fresh card that holds no message (`emulate` takes no content for it).
    public var isFactoryFresh: Bool {
        [.classic1kBlank, .classic4kBlank, .classicminiBlank].contains(self)
    }
}
