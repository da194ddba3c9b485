/// The access conditions of one MIFARE Classic sector: trailer bytes 6-8 (MF1S50yyX datasheet §8.7; docs/tags.md,
/// "MIFARE Classic").
///
/// Byte 6 holds ¬C2 and ¬C1, byte 7 C1 and ¬C3, byte 8 C3 and C2, one nibble each; bit *i* of a nibble belongs to
/// group *i* (groups 0-2 are the data blocks, group 3 the trailer). The inverted copies must agree: a card with
/// inconsistent copies blocks the sector for good, so such bits are never written.
public struct ClassicAccessBits: Sendable, Hashable {
    /// A key of the sector.
    public enum Key: Sendable, Hashable {
        /// Key A (AUTHENTICATE `60`).
        case a
        /// Key B (AUTHENTICATE `61`).
        case b
    }

    /// The condition bits `C1 C2 C3` of the four groups, as a 3-bit number each (`C1` the high bit).
    public var conditions: [UInt8]

    /// Factory (transport) bits `FF 07 80`: data read and write with either key; key A may rewrite the trailer.
    public static let factory = ClassicAccessBits(conditions: [0b000, 0b000, 0b000, 0b001])
    /// MAD sector bits `78 77 88`: data read with A or B, written with B; trailer written with B.
    public static let mad = ClassicAccessBits(conditions: [0b100, 0b100, 0b100, 0b011])
    /// NDEF sector bits `7F 07 88`: data read and written with either key; trailer written with B.
    public static let ndef = ClassicAccessBits(conditions: [0b000, 0b000, 0b000, 0b011])
    /// Read-only bits `07 8F 0F`: data read with either key, never written; trailer frozen.
    public static let readOnly = ClassicAccessBits(conditions: [0b010, 0b010, 0b010, 0b110])

    /// Creates access bits from the four groups' conditions.
    /// - Parameter conditions: four 3-bit values `C1 C2 C3`, data groups 0-2 then the trailer.
    public init(conditions: [UInt8]) {
        self.conditions = conditions.map { $0 & 0b111 }
    }

    /// Decodes trailer bytes 6-8.
    /// - Parameter bytes: the three access bytes.
    /// - Returns: the conditions, or nil when there are not three bytes or the inverted copies disagree.
    public init?(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == 3 else { return nil }
        let c1 = bytes[1] >> 4
        let c2 = bytes[2] & 0x0F
        let c3 = bytes[2] >> 4
        guard bytes[0] & 0x0F == ~c1 & 0x0F, bytes[0] >> 4 == ~c2 & 0x0F, bytes[1] & 0x0F == ~c3 & 0x0F else {
            return nil
        }
        conditions = (0..<4).map { group in
            (c1 >> group & 1) << 2 | (c2 >> group & 1) << 1 | (c3 >> group & 1)
        }
    }

    /// Trailer bytes 6-8.
    public var encoded: [UInt8] {
        var c1: UInt8 = 0
        var c2: UInt8 = 0
        var c3: UInt8 = 0
        for (group, condition) in conditions.enumerated() {
            c1 |= (condition >> 2 & 1) << group
            c2 |= (condition >> 1 & 1) << group
            c3 |= (condition & 1) << group
        }
        return [(~c2 & 0x0F) << 4 | (~c1 & 0x0F), c1 << 4 | (~c3 & 0x0F), c3 << 4 | c2]
    }

    /// Whether key B can be read from the trailer: then it cannot serve to authenticate (every access with it
    /// is refused).
    public var isKeyBReadable: Bool { [0b000, 0b010, 0b001].contains(conditions[3]) }

    /// Whether `key` may read the data blocks of `group` (0-2).
    public func canRead(group: Int, with key: Key) -> Bool {
        guard usable(key) else { return false }
        switch conditions[group] {
        case 0b000, 0b010, 0b100, 0b110, 0b001: return true
        case 0b011, 0b101: return key == .b
        default: return false
        }
    }

    /// Whether `key` may write the data blocks of `group` (0-2).
    public func canWrite(group: Int, with key: Key) -> Bool {
        guard usable(key) else { return false }
        switch conditions[group] {
        case 0b000: return true
        case 0b100, 0b110, 0b011: return key == .b
        default: return false
        }
    }

    /// Whether `key` may write key A in the trailer.
    public func canWriteKeyA(with key: Key) -> Bool {
        guard usable(key) else { return false }
        switch conditions[3] {
        case 0b000, 0b001: return key == .a
        case 0b100, 0b011: return key == .b
        default: return false
        }
    }

    /// Whether `key` may read the access bits (and the GPB, byte 9).
    public func canReadAccessBits(with key: Key) -> Bool {
        guard usable(key) else { return false }
        return [0b000, 0b010, 0b001].contains(conditions[3]) ? key == .a : true
    }

    /// Whether `key` may write the access bits (and the GPB, byte 9).
    public func canWriteAccessBits(with key: Key) -> Bool {
        guard usable(key) else { return false }
        switch conditions[3] {
        case 0b001: return key == .a
        case 0b011, 0b101: return key == .b
        default: return false
        }
    }

    /// Whether `key` may read key B.
    public func canReadKeyB(with key: Key) -> Bool {
        guard usable(key) else { return false }
        return [0b000, 0b010, 0b001].contains(conditions[3]) && key == .a
    }

    /// Whether `key` may write key B.
    public func canWriteKeyB(with key: Key) -> Bool {
        guard usable(key) else { return false }
        switch conditions[3] {
        case 0b000, 0b001: return key == .a
        case 0b100, 0b011: return key == .b
        default: return false
        }
    }

    /// Key B is unusable while it is readable.
    private func usable(_ key: Key) -> Bool { key == .a || !isKeyBReadable }
}
