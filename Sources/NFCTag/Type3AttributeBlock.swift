/// The Type 3 attribute information block (block 0 of the NDEF service; docs/tags.md, "Type 3 tags"):
/// `Ver Nbr Nbw Nmaxb(2) 00 00 00 00 WriteF RWFlag Ln(3) Checksum(2)`, the checksum being the sum of bytes 0-13.
public struct Type3AttributeBlock: Sendable, Hashable {
    /// The mapping version (`10`: 1.0).
    public var version: UInt8
    /// Nbr: the most blocks one Read Without Encryption may ask for.
    public var maxReadBlocks: Int
    /// Nbw: the most blocks one Write Without Encryption may carry.
    public var maxWriteBlocks: Int
    /// Nmaxb: the NDEF area in 16-byte blocks (from block 1).
    public var maxBlocks: Int
    /// WriteF: `00` done, `0F` a write is in progress.
    public var writeFlag: UInt8
    /// RWFlag: `00` read-only, `01` read/write.
    public var rwFlag: UInt8
    /// Ln: the NDEF message length in bytes.
    public var length: Int

    /// Whether the tag may be written.
    public var isWritable: Bool { rwFlag == 0x01 && maxWriteBlocks > 0 }
    /// The NDEF area in bytes, Nmaxb × 16.
    public var capacity: Int { maxBlocks * 16 }

    /// Creates an attribute block from its fields.
    public init(
        version: UInt8 = 0x10, maxReadBlocks: Int, maxWriteBlocks: Int, maxBlocks: Int, writeFlag: UInt8 = 0x00,
        rwFlag: UInt8 = 0x01, length: Int
    ) {
        self.version = version
        self.maxReadBlocks = maxReadBlocks
        self.maxWriteBlocks = maxWriteBlocks
        self.maxBlocks = maxBlocks
        self.writeFlag = writeFlag
        self.rwFlag = rwFlag
        self.length = length
    }

    /// The 16 bytes, checksum included.
    public var bytes: [UInt8] {
        var bytes: [UInt8] = [
            version, UInt8(truncatingIfNeeded: maxReadBlocks), UInt8(truncatingIfNeeded: maxWriteBlocks),
            UInt8(truncatingIfNeeded: maxBlocks >> 8), UInt8(truncatingIfNeeded: maxBlocks), 0, 0, 0, 0, writeFlag,
            rwFlag, UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length),
        ]
        let sum = bytes.reduce(0) { $0 + Int($1) }
        bytes += [UInt8(truncatingIfNeeded: sum >> 8), UInt8(truncatingIfNeeded: sum)]
        return bytes
    }

    /// Parses and checks an attribute block.
    /// - Parameters:
    ///   - bytes: the 16 bytes of block 0.
    ///   - allowingWriteInProgress: accept WriteF `0F` (a writer about to rewrite the message does).
    /// - Throws: `NFCTagError.malformedCapabilityContainer` naming the byte: a length other than 16, a wrong
    ///   checksum (bytes 14-15), a major version other than 1 (byte 0), Nbr 0 (byte 1), a WriteF other than `00`
    ///   (`0F` with an Ln above 0: the message may be torn by an interrupted write; `0F` with Ln 0 is a write that
    ///   has not put a message yet, accepted) (byte 9), an RWFlag other than `00`/`01` (byte 10), or
    ///   an Ln larger than Nmaxb × 16 (byte 11).
    public init(_ bytes: ArraySlice<UInt8>, allowingWriteInProgress: Bool = false) throws(NFCTagError) {
        guard bytes.count == 16 else {
            throw Self.malformed(bytes.count, "\(bytes.count) bytes, 16 expected")
        }
        let b = Array(bytes)
        let sum = b[0..<14].reduce(0) { $0 + Int($1) }
        let checksum = Int(b[14]) << 8 | Int(b[15])
        guard sum == checksum else {
            throw Self.malformed(
                14,
                "checksum \(CommandName.hex(b[14...15], separator: " ")) does not match the sum of bytes 0-13 (\(CommandName.hex([UInt8(truncatingIfNeeded: sum >> 8), UInt8(truncatingIfNeeded: sum)][...], separator: " ")))"
            )
        }
        version = b[0]
        guard version >> 4 == 1 else {
            throw Self.malformed(
                0, "version \(version >> 4).\(version & 0xF) is not supported (major version 1 expected)")
        }
        maxReadBlocks = Int(b[1])
        maxWriteBlocks = Int(b[2])
        maxBlocks = Int(b[3]) << 8 | Int(b[4])
        writeFlag = b[9]
        rwFlag = b[10]
        length = Int(b[11]) << 16 | Int(b[12]) << 8 | Int(b[13])
        guard maxReadBlocks > 0 else { throw Self.malformed(1, "Nbr is 0: no block may be read") }
        // WriteF 0F with Ln 0 is how TagRouter's writer starts (docs/tags.md, "Writing Type 3 tags"): no message
        // yet, so nothing can be torn, and the card reads as empty.
        guard writeFlag != 0x0F || length == 0 || allowingWriteInProgress else {
            throw Self.malformed(9, "WriteF 0F: a write was interrupted, the message may be torn")
        }
        guard writeFlag == 0x00 || writeFlag == 0x0F else {
            throw Self.malformed(9, "WriteF \(CommandName.hex(writeFlag)) is not 00 or 0F")
        }
        guard rwFlag <= 0x01 else { throw Self.malformed(10, "RWFlag \(CommandName.hex(rwFlag)) is not 00 or 01") }
        guard length <= maxBlocks * 16 else {
            throw Self.malformed(
                11, "Ln \(length) is larger than the NDEF area (Nmaxb \(maxBlocks) × 16 = \(maxBlocks * 16) bytes)")
        }
    }

    private static func malformed(_ offset: Int, _ problem: String) -> NFCTagError {
        NFCTagError(
            .malformedCapabilityContainer, offset: offset, "Type 3 attribute block at byte \(offset): \(problem)")
    }
}
