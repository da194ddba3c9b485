/// The Type 2 capability container at page 3: `E1 <version> <size> <access>`.
public struct Type2CapabilityContainer: Sendable, Hashable {
    /// The mapping version byte (major in the high nibble).
    public var version: UInt8
    /// The data area size in bytes (size byte × 8), starting at tag byte 16.
    public var dataAreaSize: Int
    /// The access byte: high nibble 0 = readable, low nibble 0 = writable, F = read-only.
    public var access: UInt8

    /// Whether the CC allows reading the NDEF data.
    public var isReadable: Bool { access >> 4 == 0 }
    /// Whether the CC allows writing the NDEF data.
    public var isWritable: Bool { access & 0x0F == 0 }

    /// Creates a CC from its fields.
    /// - Parameters:
    ///   - version: the mapping version byte.
    ///   - dataAreaSize: the data area size in bytes (a multiple of 8, at most 2040).
    ///   - access: the access byte.
    public init(version: UInt8 = 0x10, dataAreaSize: Int, access: UInt8 = 0x00) {
        self.version = version
        self.dataAreaSize = dataAreaSize
        self.access = access
    }

    /// The four CC bytes `E1 <version> <size> <access>`.
    public var bytes: [UInt8] { [0xE1, version, UInt8(truncatingIfNeeded: dataAreaSize / 8), access] }

    /// Parses the four CC bytes.
    /// - Parameter bytes: the four bytes of page 3 (tag bytes 12..<16).
    /// - Returns: the CC, or nil when the magic byte is not `E1` (a blank or non-NDEF tag).
    /// - Throws: `NFCTagError.malformedCapabilityContainer` for fewer than 4 bytes, an unsupported major version
    ///   or a zero size.
    public init?(_ bytes: ArraySlice<UInt8>) throws {
        guard bytes.count >= 4 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 12,
                "Type 2 capability container at byte 12: \(bytes.count) bytes, 4 expected")
        }
        let start = bytes.startIndex
        guard bytes[start] == 0xE1 else { return nil }
        version = bytes[start + 1]
        dataAreaSize = Int(bytes[start + 2]) * 8
        access = bytes[start + 3]
        guard version >> 4 == 1 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 13,
                "Type 2 capability container at byte 13: version \(version >> 4).\(version & 0xF) is not supported (major version 1 expected)"
            )
        }
        guard dataAreaSize > 0 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 14,
                "Type 2 capability container at byte 14: data area size is 0")
        }
    }
}
