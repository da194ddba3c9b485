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
