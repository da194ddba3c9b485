/// The features a reader's driver advertises in its answer to `CM_IOCTL_GET_FEATURE_REQUEST`
/// (`SCARD_CTL_CODE(3400)`): a list of TLVs, each a tag, a length of 4 and a big-endian control code
/// (docs/tags.md, "Reader feedback").
public struct CCIDFeatures: Sendable, Hashable {
    /// The control code of each advertised feature, by tag.
    public var controlCodes: [UInt8: UInt32]

    /// `FEATURE_CCID_ESC_COMMAND`: the escape command a reader's own commands go through without a card.
    public static let escapeCommandTag: UInt8 = 0x13

    /// Creates a feature list.
    /// - Parameter controlCodes: the control code of each feature, by tag.
    public init(controlCodes: [UInt8: UInt32] = [:]) {
        self.controlCodes = controlCodes
    }

    /// Parses the driver's answer.
    /// - Parameter bytes: the TLVs.
    /// - Throws: ``FeedbackError/malformedFeatures(offset:reason:)`` naming the byte offset of a TLV whose length
    ///   is not 4 or that runs past the end.
    public init(parsing bytes: [UInt8]) throws(FeedbackError) {
        var codes: [UInt8: UInt32] = [:]
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count else {
                throw .malformedFeatures(offset: offset, reason: "a feature's tag has no length byte")
            }
            let tag = bytes[offset]
            let length = Int(bytes[offset + 1])
            guard length == 4 else {
                throw .malformedFeatures(
                    offset: offset + 1, reason: "feature 0x\(Self.hex(tag)) has length \(length), expected 4")
            }
            guard offset + 2 + length <= bytes.count else {
                throw .malformedFeatures(
                    offset: offset, reason: "feature 0x\(Self.hex(tag)) runs past the end (\(bytes.count) bytes)")
            }
            let value = bytes[(offset + 2)..<(offset + 6)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            codes[tag] = value
            offset += 2 + length
        }
        self.controlCodes = codes
    }

    /// The control code of the escape command (tag 0x13), if the driver advertises it.
    public var escapeControlCode: UInt32? { controlCodes[Self.escapeCommandTag] }

    /// pcsc-lite's `SCARD_CTL_CODE(code)` on Linux: `0x42000000 + code`.
    /// - Parameter code: the code (3400 for the feature request, 3500 for acsccid's escape).
    /// - Returns: the control code.
    public static func controlCode(_ code: UInt32) -> UInt32 { 0x4200_0000 + code }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}

/// What went wrong with a reader's feedback.
public enum FeedbackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The feature list is malformed at a byte offset.
    case malformedFeatures(offset: Int, reason: String)

    /// The error, with where it happened.
    public var description: String {
        switch self {
        case .malformedFeatures(let offset, let reason): "feature list, byte \(offset): \(reason)"
        }
    }
}
