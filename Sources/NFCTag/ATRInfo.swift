/// What a contactless reader's synthesised ATR says about the card (PC/SC Part 3; docs/tags.md, "ATR recognition").
///
/// Storage cards carry `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00 TCK`, naming their standard
/// (`SS`) and card (`NN NN`); anything else is taken for an ISO 14443-4 card, to be asked for the Type 4 NDEF
/// application.
public struct ATRInfo: Sendable, Hashable {
    /// The PC/SC Part 3 standard byte `SS` of a storage card.
    public enum Standard: Sendable, Hashable {
        /// `03`: ISO 14443A part 3.
        case iso14443A3
        /// `07`: ISO 14443B part 3.
        case iso14443B3
        /// `09`..`0C`: ISO 15693 (the part number is `SS - 8`).
        case iso15693(part: Int)
        /// `11`: FeliCa.
        case felica
        /// Any other value.
        case other(UInt8)

        /// Interprets a standard byte.
        /// - Parameter byte: the `SS` byte.
        public init(byte: UInt8) {
            switch byte {
            case 0x03: self = .iso14443A3
            case 0x07: self = .iso14443B3
            case 0x09...0x0C: self = .iso15693(part: Int(byte) - 8)
            case 0x11: self = .felica
            default: self = .other(byte)
            }
        }
    }

    /// The PC/SC Part 3 card name `NN NN` of a storage card (with ACS's proprietary values).
    public enum CardName: Sendable, Hashable, CustomStringConvertible {
        /// `00 01`.
        case mifareClassic1K
        /// `00 02`.
        case mifareClassic4K
        /// `00 03`: MIFARE Ultralight and NTAG21x.
        case mifareUltralight
        /// `00 26`.
        case mifareClassicMini
        /// `00 3B` (newer ACS readers).
        case felica
        /// `F0 04` (ACS): Topaz / Jewel, NFC Forum Type 1.
        case topaz
        /// `F0 11` (ACS).
        case felica212K
        /// `F0 12` (ACS).
        case felica424K
        /// Any other value.
        case other(UInt16)

        /// Interprets a card name.
        /// - Parameter value: `NN NN` as one big-endian number.
        public init(value: UInt16) {
            switch value {
            case 0x0001: self = .mifareClassic1K
            case 0x0002: self = .mifareClassic4K
            case 0x0003: self = .mifareUltralight
            case 0x0026: self = .mifareClassicMini
            case 0x003B: self = .felica
            case 0xF004: self = .topaz
            case 0xF011: self = .felica212K
            case 0xF012: self = .felica424K
            default: self = .other(value)
            }
        }

        /// The card's usual name, e.g. `MIFARE Classic 1K`.
        public var description: String {
            switch self {
            case .mifareClassic1K: "MIFARE Classic 1K"
            case .mifareClassic4K: "MIFARE Classic 4K"
            case .mifareUltralight: "MIFARE Ultralight / NTAG21x"
            case .mifareClassicMini: "MIFARE Classic Mini"
            case .felica: "FeliCa"
            case .topaz: "Topaz (NFC Forum Type 1)"
            case .felica212K: "FeliCa 212K"
            case .felica424K: "FeliCa 424K"
            case .other(let value): "card name \(CommandName.hex([UInt8(value >> 8), UInt8(value & 0xFF)][...]))"
            }
        }
    }

    /// A storage card's standard and name, as the ATR gives them.
    public struct StorageCard: Sendable, Hashable {
        /// The standard byte.
        public var standard: Standard
        /// The card name.
        public var name: CardName
    }

    /// The ATR bytes.
    public var atr: [UInt8]
    /// The storage card described by the ATR, or nil for an ISO 14443-4 (or unrecognised) card.
    public var storageCard: StorageCard?

    /// Classifies an ATR. Never fails: an ATR that is not a storage card's is an ISO 14443-4 card's.
    /// - Parameter atr: the ATR bytes as the reader reports them.
    public init(atr: [UInt8]) {
        self.atr = atr
        guard atr.count >= 15, atr[0] == 0x3B, atr[4...11].elementsEqual(Self.storageMarker) else {
            storageCard = nil
            return
        }
        storageCard = StorageCard(
            standard: Standard(byte: atr[12]), name: CardName(value: UInt16(atr[13]) << 8 | UInt16(atr[14])))
    }

    /// The technology to read the card as: `iso14443Part4` for a card that is not a storage card (try the
    /// Type 4 application), nil for a storage card this module cannot place (ISO 14443B-3 cards).
    ///
    /// The card name decides first; an unknown name on ISO 14443A-3 is taken for a Type 2 tag (the Ultralight
    /// family, whose Type 2 read fails cleanly if it is not one), on ISO 15693 for Type 5, on FeliCa for FeliCa.
    public var technology: TagTechnology? {
        guard let storageCard else { return .iso14443Part4 }
        switch storageCard.name {
        case .mifareClassic1K, .mifareClassic4K, .mifareClassicMini: return .mifareClassic
        case .mifareUltralight: return .type2
        case .felica, .felica212K, .felica424K: return .felica
        case .topaz: return .type1
        case .other:
            switch storageCard.standard {
            case .iso14443A3: return .type2
            case .iso15693: return .type5
            case .felica: return .felica
            case .iso14443B3, .other: return nil
            }
        }
    }

    /// Bytes 4..11 of every storage card ATR: `80 4F 0C A0 00 00 03 06` (RID of PC/SC Part 3).
    static let storageMarker: [UInt8] = [0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]
}
