/// Steps through UTF-8 bytes one Unicode scalar at a time, tolerating invalid bytes (one byte each).
enum UTF8Scalar {
    /// The length of the scalar starting at `i` (1 for an invalid or truncated sequence).
    static func length(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let lead = s[i]
        let expected =
            switch lead {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 1
            }
        guard expected > 1, i + expected <= s.count else { return 1 }
        for k in 1..<expected where s[i + k] & 0xC0 != 0x80 { return 1 }
        return expected
    }

    /// The scalar starting at `i` and its length; invalid bytes decode as U+FFFD of length 1.
    static func decode(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> (Unicode.Scalar, Int) {
        let length = length(s, i)
        if length == 1 {
            return (s[i] < 0x80 ? Unicode.Scalar(s[i]) : "\u{FFFD}", 1)
        }
        var value = UInt32(s[i]) & (0xFF >> (length + 1))
        for k in 1..<length { value = value << 6 | UInt32(s[i + k] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }
}
