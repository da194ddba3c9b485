/// The MIFARE Classic cards and their geometry (docs/tags.md, "MIFARE Classic"): sectors 0-31 have 4 blocks of
/// 16 bytes, the 4K's sectors 32-39 have 16; the last block of a sector is its trailer (keys and access bits).
public enum MifareClassicModel: String, Sendable, Hashable, CaseIterable {
    /// MIFARE Classic Mini: 5 sectors, 20 blocks (320 bytes).
    case mini
    /// MIFARE Classic 1K: 16 sectors, 64 blocks.
    case classic1K = "1k"
    /// MIFARE Classic 4K: 40 sectors, 256 blocks; MAD2 in sector 16.
    case classic4K = "4k"

    /// The model an ATR card name stands for, or nil when it is not a MIFARE Classic.
    /// - Parameter cardName: the ATR's card name.
    public init?(cardName: ATRInfo.CardName) {
        switch cardName {
        case .mifareClassicMini: self = .mini
        case .mifareClassic1K: self = .classic1K
        case .mifareClassic4K: self = .classic4K
        default: return nil
        }
    }

    /// The usual name, e.g. `MIFARE Classic 1K`.
    public var displayName: String {
        switch self {
        case .mini: "MIFARE Classic Mini"
        case .classic1K: "MIFARE Classic 1K"
        case .classic4K: "MIFARE Classic 4K"
        }
    }

    /// The number of sectors.
    public var sectorCount: Int {
        switch self {
        case .mini: 5
        case .classic1K: 16
        case .classic4K: 40
        }
    }

    /// The number of 16-byte blocks.
    public var blockCount: Int { Self.firstBlock(ofSector: sectorCount) }

    /// The sectors that may hold NDEF data: all but sector 0 (MAD1) and, on a 4K, sector 16 (MAD2).
    public var ndefSectors: [Int] { (1..<sectorCount).filter { $0 != 16 } }

    /// The NDEF area of a card formatted with every sector for NDEF: Mini 192, 1K 720, 4K 3360 bytes.
    public var ndefCapacity: Int {
        ndefSectors.reduce(0) { $0 + Self.dataBlocks(ofSector: $1).count * 16 }
    }

    /// How many blocks a sector has: 4, or 16 for sectors 32 and up.
    public static func blockCount(ofSector sector: Int) -> Int { sector < 32 ? 4 : 16 }

    /// The first block of a sector.
    public static func firstBlock(ofSector sector: Int) -> Int {
        sector <= 32 ? sector * 4 : 128 + (sector - 32) * 16
    }

    /// The trailer block of a sector (its last block).
    public static func trailerBlock(ofSector sector: Int) -> Int {
        firstBlock(ofSector: sector) + blockCount(ofSector: sector) - 1
    }

    /// The data blocks of a sector (every block but the trailer; block 0 included for sector 0).
    public static func dataBlocks(ofSector sector: Int) -> Range<Int> {
        firstBlock(ofSector: sector)..<trailerBlock(ofSector: sector)
    }

    /// The sector a block belongs to.
    public static func sector(ofBlock block: Int) -> Int {
        block < 128 ? block / 4 : 32 + (block - 128) / 16
    }

    /// The access-bits group of a block inside its sector: 0-2 for data blocks (blocks 0-4, 5-9, 10-14 of a
    /// 16-block sector), 3 for the trailer.
    public static func accessGroup(ofBlock block: Int) -> Int {
        let sector = sector(ofBlock: block)
        let index = block - firstBlock(ofSector: sector)
        if block == trailerBlock(ofSector: sector) { return 3 }
        return blockCount(ofSector: sector) == 4 ? index : index / 5
    }

    /// The block an AUTHENTICATE names for a sector: its first block, or the trailer (block 3) for sector 0,
    /// whose first block is the manufacturer block.
    public static func authenticationBlock(ofSector sector: Int) -> Int {
        sector == 0 ? 3 : firstBlock(ofSector: sector)
    }
}
