/// Hex helpers for test tables.
public enum Hex {
    /// Parses hex text, ignoring spaces, colons and dashes.
    /// - Parameter text: hex digits, any case, with optional separators.
    /// - Returns: the bytes; traps on invalid text (test tables are written by us).
    public static func bytes(_ text: String) -> [UInt8] {
        let digits = text.filter { !" :-\n".contains($0) }
        precondition(digits.count % 2 == 0, "odd number of hex digits in \(text)")
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            out.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    /// Formats bytes as lowercase hex without separators.
    public static func string(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
