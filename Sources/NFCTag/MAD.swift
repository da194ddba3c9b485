/// A MIFARE Application Directory (NXP AN10787; docs/tags.md, "MIFARE Classic"): which application each sector
/// holds.
///
/// MAD1 sits in blocks 1-2 of sector 0 and covers sectors 1-15; MAD2 (4K only) sits in blocks 64-66 of sector
/// 16 and covers sectors 17-39. Each is a CRC byte, an info byte (bits 5-0: the card publisher sector) and one
/// two-byte AID per sector, stored low byte first: NDEF is stored `03 E1` (AID `E103`).
public struct MAD: Sendable, Hashable {
    /// Which directory: MAD1 (sector 0) or MAD2 (sector 16).
    public enum Version: Sendable, Hashable {
        /// Blocks 1-2, sectors 1-15.
        case mad1
        /// Blocks 64-66, sectors 17-39.
        case mad2

        /// The first sector the directory covers.
        public var firstSector: Int { self == .mad1 ? 1 : 17 }
        /// The number of sectors it covers.
        public var sectorCount: Int { self == .mad1 ? 15 : 23 }
        /// Its size in bytes, CRC included: 32 (two blocks) or 48 (three).
        public var byteCount: Int { self == .mad1 ? 32 : 48 }
    }

    /// The NDEF application, stored as the bytes `03 E1`.
    public static let ndefAID: UInt16 = 0xE103
    /// A free sector, stored `00 00`.
    public static let freeAID: UInt16 = 0x0000
    /// A sector past the card's end (Mini sectors 5-15), stored `05 00`.
    public static let notApplicableAID: UInt16 = 0x0005

    /// Which directory this is.
    public var version: Version
    /// The info byte: bits 5-0 name the card publisher sector (0: none).
    public var info: UInt8
    /// One AID per covered sector, in sector order (`version.firstSector` first).
    public var aids: [UInt16]

    /// Creates a directory.
    /// - Parameters:
    ///   - version: MAD1 or MAD2.
    ///   - info: the info byte.
    ///   - aids: one AID per covered sector; missing ones are free, extra ones are dropped.
    public init(version: Version, info: UInt8 = 0x01, aids: [UInt16]) {
        self.version = version
        self.info = info
        self.aids = Array(
            (aids + Array(repeating: Self.freeAID, count: version.sectorCount)).prefix(version.sectorCount))
    }

    /// Parses a directory from its blocks.
    /// - Parameters:
    ///   - bytes: blocks 1-2 (MAD1) or 64-66 (MAD2): at least `version.byteCount` bytes; more are ignored.
    ///   - version: which directory.
    /// - Returns: the directory, or nil when the bytes are too few or the CRC does not match (the card is not
    ///   MAD formatted: a factory card has zeros there).
    public init?(_ bytes: some Collection<UInt8>, version: Version) {
        let bytes = Array(bytes.prefix(version.byteCount))
        guard bytes.count == version.byteCount, Self.crc(bytes[1...]) == bytes[0] else { return nil }
        self.version = version
        self.info = bytes[1]
        self.aids = stride(from: 2, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }

    /// The directory as stored: CRC, info, the AIDs low byte first.
    public var encoded: [UInt8] {
        let body = [info] + aids.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        return [Self.crc(body)] + body
    }

    /// The sectors whose AID is NDEF, in order.
    public var ndefSectors: [Int] {
        aids.indices.filter { aids[$0] == Self.ndefAID }.map { $0 + version.firstSector }
    }

    /// The MAD CRC-8: polynomial `1D`, preset `C7`, most significant bit first, over the info byte and the AIDs
    /// as stored (libfreefare `mad.c`). Check values: info `01` + 15 × `03 E1` gives `14`; info `01` + 23 ×
    /// `03 E1` gives `E8`.
    /// - Parameter bytes: the bytes after the CRC.
    /// - Returns: the CRC.
    public static func crc(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var crc: UInt8 = 0xC7
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x1D : crc << 1
            }
        }
        return crc
    }
}
