/// The tags `tagrouter emulate --tag` offers, each in its factory layout.
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
        case .type5: try Type5Card(message: message)
        case .felica: try FeliCaCard(message: message)
        case .type1: try Type1Card(message: message)
        }
    }
}
