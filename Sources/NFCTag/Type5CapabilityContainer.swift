/// The Type 5 (ISO 15693) capability container at byte 0 (docs/tags.md, "Type 5 tags"): four bytes
/// `E1|E2 <version/access> <MLEN> <features>`, or eight, `E1|E2 <version/access> 00 <features> 00 00 <MLEN(2)>`
/// when byte 2 is `00`.
///
/// The magic `E2` says blocks past 255 need 2-byte block numbers. MLEN counts 8-byte units: tags with a
/// four-byte CC (NXP factory tags, Android's formatter, ST25TV) count the whole memory, CC included; the eight-byte
/// CC (ST25DV64K) counts the memory after it. MLEN is an upper bound: the data area is also clamped to what
/// the addressing reaches.
public struct Type5CapabilityContainer: Sendable, Hashable {
    /// Whether the magic is `E2`: more than 256 blocks, 2-byte block numbers.
    public var usesTwoByteAddressing: Bool
    /// The version/access byte: bits 7-6 major version, 5-4 minor, 3-2 read access, 1-0 write access.
    public var versionAndAccess: UInt8
    /// MLEN, in 8-byte units.
    public var mlen: Int
    /// The feature byte (bit 0: Read Multiple Blocks supported).
    public var features: UInt8
    /// 4 or 8.
    public var size: Int

    /// The major mapping version (1).
    public var majorVersion: Int { Int(versionAndAccess >> 6) }
    /// The read access bits (`00` granted).
    public var readAccess: UInt8 { (versionAndAccess >> 2) & 0x03 }
    /// The write access bits (`00` granted, `11` never).
    public var writeAccess: UInt8 { versionAndAccess & 0x03 }
    /// Whether the CC allows reading the NDEF data.
    public var isReadable: Bool { readAccess == 0 }
    /// Whether the CC allows writing the NDEF data.
    public var isWritable: Bool { writeAccess == 0 }

    /// The data area size in bytes, from byte `size`: MLEN × 8 (less the CC for a four-byte CC), clamped to
    /// 256 blocks of `blockSize` bytes for `E1` (1-byte block numbers) and 65536 blocks for `E2`.
    /// - Parameter blockSize: the tag's block size (4 or 8).
    public func dataAreaSize(blockSize: Int) -> Int {
        let announced = size == 4 ? mlen * 8 - 4 : mlen * 8
        let reachable = (usesTwoByteAddressing ? 65536 : 256) * blockSize - size
        return max(0, min(announced, reachable))
    }

    /// Creates a CC from its fields.
    /// - Parameters:
    ///   - usesTwoByteAddressing: `E2` instead of `E1`.
    ///   - versionAndAccess: byte 1 (`40` read/write, `43` read-only).
    ///   - mlen: MLEN in 8-byte units.
    ///   - features: byte 3.
    ///   - size: 4 or 8 (MLEN above 255 needs 8).
    public init(
        usesTwoByteAddressing: Bool = false, versionAndAccess: UInt8 = 0x40, mlen: Int, features: UInt8 = 0x01,
        size: Int = 4
    ) {
        self.usesTwoByteAddressing = usesTwoByteAddressing
        self.versionAndAccess = versionAndAccess
        self.mlen = mlen
        self.features = features
        self.size = size
    }

    /// The CC bytes, four or eight.
    public var bytes: [UInt8] {
        let magic: UInt8 = usesTwoByteAddressing ? 0xE2 : 0xE1
        if size == 4 { return [magic, versionAndAccess, UInt8(truncatingIfNeeded: mlen), features] }
        return [
            magic, versionAndAccess, 0x00, features, 0x00, 0x00, UInt8(truncatingIfNeeded: mlen >> 8),
            UInt8(truncatingIfNeeded: mlen),
        ]
    }

    /// The CC size the first four bytes announce: nil when byte 0 is not `E1`/`E2` (not NDEF formatted), 8 when
    /// byte 2 (MLEN) is `00`, else 4.
    /// - Parameter bytes: at least the first byte of the tag; byte 2 when present.
    public static func announcedSize(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard let magic = bytes.first, magic == 0xE1 || magic == 0xE2 else { return nil }
        return bytes.count >= 3 && bytes[bytes.startIndex + 2] == 0x00 ? 8 : 4
    }

    /// Parses the CC at tag byte 0.
    /// - Parameter bytes: the tag's first bytes (4, or 8 when byte 2 is `00`; more are ignored).
    /// - Returns: the CC, or nil when byte 0 is not `E1`/`E2` (a blank or non-NDEF tag).
    /// - Throws: `NFCTagError.malformedCapabilityContainer` (naming the tag byte) for too few bytes, a major version
    ///   other than 1, non-zero bytes 4-5 of an eight-byte CC, or a zero MLEN.
    public init?(_ bytes: ArraySlice<UInt8>) throws(NFCTagError) {
        guard let size = Self.announcedSize(bytes) else { return nil }
        guard bytes.count >= size else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: bytes.count,
                "Type 5 capability container at byte \(bytes.count): \(bytes.count) bytes, \(size) expected")
        }
        let base = bytes.startIndex
        usesTwoByteAddressing = bytes[base] == 0xE2
        versionAndAccess = bytes[base + 1]
        features = bytes[base + 3]
        self.size = size
        mlen = size == 4 ? Int(bytes[base + 2]) : Int(bytes[base + 6]) << 8 | Int(bytes[base + 7])
        guard versionAndAccess >> 6 == 1 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 1,
                "Type 5 capability container at byte 1: version \(versionAndAccess >> 6).\((versionAndAccess >> 4) & 3) is not supported (major version 1 expected)"
            )
        }
        if size == 8 {
            guard bytes[base + 4] == 0, bytes[base + 5] == 0 else {
                throw NFCTagError(
                    .malformedCapabilityContainer, offset: 4,
                    "Type 5 capability container at byte 4: bytes 4-5 of an 8-byte CC must be 00 00")
            }
        }
        guard mlen > 0 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: size == 4 ? 2 : 6,
                "Type 5 capability container at byte \(size == 4 ? 2 : 6): MLEN is 0")
        }
    }
}
