/// Sizes as rules write them: a whole number followed by `B`, `KB`, `MB`, `GB`, `TB` (powers of 1,000) or `KiB`,
/// `MiB`, `GiB`, `TiB` (powers of 1,024): `500MB`, `2GB`, `1GiB`.
public enum SizeText {
    static let units: [(String, Int64)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("B", 1),
    ]

    /// Parses `text`; nil when it is not a whole number (at most 9 digits) followed by one of the units.
    /// - Parameter text: the size as written.
    /// - Returns: the size in bytes.
    public static func parse(_ text: String) -> Int64? {
        for (unit, size) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count)
            guard !number.isEmpty, number.count <= 9, number.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int64(number)
            else { return nil }
            return value * size
        }
        return nil
    }
}
