/// Lowercase hex without separators.
enum HexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Formats bytes as lowercase hex.
    static func string(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
}

/// `0x2A`: a byte in hex for messages.
func hexByte(_ byte: UInt8) -> String {
    "0x" + HexText.string([byte]).uppercased()
}

/// `1 byte`, `41 bytes`.
func byteCount(_ count: Int) -> String {
    count == 1 ? "1 byte" : "\(count) bytes"
}
