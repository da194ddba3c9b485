/// The Type 4 CC file (E103): `CCLEN(2) version(1) MLe(2) MLc(2)` then the NDEF File Control TLV, standard
/// `04 06 <file id(2)> <max size(2)> <read> <write>` or extended (mapping 3.0)
/// `06 08 <file id(2)> <max size(4)> <read> <write>`.
public struct Type4CapabilityContainer: Sendable, Hashable {
    /// CCLEN: the CC file's length.
    public var length: Int
    /// The mapping version byte (major in the high nibble).
    public var version: UInt8
    /// MLe: the most data bytes one READ BINARY may return.
    public var maxResponseData: Int
    /// MLc: the most data bytes one UPDATE BINARY may send.
    public var maxCommandData: Int
    /// The NDEF file identifier (often `E1 04`).
    public var fileID: [UInt8]
    /// The NDEF file's maximum size, NLEN field included.
    public var maxFileSize: Int
    /// The read access byte: `00` granted.
    public var readAccess: UInt8
    /// The write access byte: `00` granted, `FF` never.
    public var writeAccess: UInt8
    /// Whether the NDEF File Control TLV is the extended form (4-byte sizes and NLEN).
    public var isExtended: Bool

    /// The size of the NLEN field at the start of the NDEF file: 2, or 4 for the extended form.
    public var nlenSize: Int { isExtended ? 4 : 2 }

    /// The CC bytes needed to parse the TLV whose tag is `tag`: 15, or 17 for the extended TLV.
    static func requiredLength(tlvTag: UInt8) -> Int { tlvTag == 0x06 ? 17 : 15 }

    /// Parses a CC file's first bytes.
    /// - Parameter bytes: at least 15 bytes (17 for the extended TLV) from offset 0 of the CC file.
    /// - Throws: `NFCTagError.malformedCapabilityContainer` naming the CC file offset.
    public init(_ bytes: [UInt8]) throws {
        func fail(_ offset: Int, _ text: String) -> NFCTagError {
            NFCTagError(.malformedCapabilityContainer, offset: offset, "Type 4 CC file at byte \(offset): \(text)")
        }
        guard bytes.count >= 15 else {
            throw fail(bytes.count, "the file ends after \(bytes.count) bytes, 15 expected")
        }
        length = Int(bytes[0]) << 8 | Int(bytes[1])
        version = bytes[2]
        maxResponseData = Int(bytes[3]) << 8 | Int(bytes[4])
        maxCommandData = Int(bytes[5]) << 8 | Int(bytes[6])
        let tag = bytes[7]
        let tlvLength = bytes[8]
        switch (tag, tlvLength) {
        case (0x04, 0x06): isExtended = false
        case (0x06, 0x08): isExtended = true
        default:
            throw fail(
                7, "NDEF File Control TLV \(CommandName.hex(tag)) length \(tlvLength) is neither 04 06 nor 06 08")
        }
        let required = Self.requiredLength(tlvTag: tag)
        guard length >= required else { throw fail(0, "CCLEN \(length) is shorter than its NDEF File Control TLV") }
        guard bytes.count >= required else {
            throw fail(bytes.count, "the file ends after \(bytes.count) bytes, \(required) expected")
        }
        guard (1...3).contains(version >> 4) else {
            throw fail(2, "mapping version \(version >> 4).\(version & 0xF) is not supported")
        }
        guard maxResponseData >= 0x0F else { throw fail(3, "MLe \(maxResponseData) is below the minimum 15") }
        fileID = [bytes[9], bytes[10]]
        if isExtended {
            maxFileSize = Int(bytes[11]) << 24 | Int(bytes[12]) << 16 | Int(bytes[13]) << 8 | Int(bytes[14])
            readAccess = bytes[15]
            writeAccess = bytes[16]
        } else {
            maxFileSize = Int(bytes[11]) << 8 | Int(bytes[12])
            readAccess = bytes[13]
            writeAccess = bytes[14]
        }
        guard maxFileSize >= nlenSize else {
            throw fail(11, "NDEF file maximum size \(maxFileSize) cannot hold its \(nlenSize)-byte NLEN")
        }
    }
}
