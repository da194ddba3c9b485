/// Bytes as hex text: the one formatter of UIDs, ATRs, payloads, status words and digests across TagRouter.
public enum HexText {
    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)

    /// Formats bytes as hex.
    /// - Parameters:
    ///   - bytes: the bytes.
    ///   - uppercase: `A`–`F` instead of `a`–`f`.
    ///   - separator: what goes between two bytes (none by default).
    /// - Returns: two digits per byte.
    public static func string<C: Collection<UInt8>>(
        _ bytes: C, uppercase: Bool = false, separator: String = ""
    ) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        let gap = Array(separator.utf8)
        let count = bytes.count * 2 + max(0, bytes.count - 1) * gap.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            var index = 0
            for byte in bytes {
                if index > 0 {
                    for character in gap {
                        buffer[index] = character
                        index += 1
                    }
                }
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// Parses hex digits (either case, no separators).
    /// - Parameter text: the digits.
    /// - Returns: the bytes; nil for an empty text, an odd count or anything but a hex digit.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `0x2A`: one byte as messages name it.
    /// - Parameter byte: the byte.
    /// - Returns: `0x` and two uppercase digits.
    public static func byte(_ byte: UInt8) -> String {
        "0x" + string(CollectionOfOne(byte), uppercase: true)
    }
}

/// `1 byte`, `41 bytes`.
func byteCount(_ count: Int) -> String {
    count == 1 ? "1 byte" : "\(count) bytes"
}
