/// Durations as rules write them: `500ms`, `2s`, `1m`, `1h`, `1d`, or `0`.
public enum DurationText {
    /// Parses `text`; nil when it is not a non-negative whole number followed by `ms`, `s`, `m`, `h` or `d`
    /// (or `0`).
    public static func parse(_ text: String) -> Duration? {
        if text == "0" { return .zero }
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (unit, milliseconds) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count)
            guard !number.isEmpty, number.count <= 9, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
                let value = Int64(number)
            else { return nil }
            return .milliseconds(value * milliseconds)
        }
        return nil
    }

    /// Formats a duration in the largest unit that divides it.
    public static func format(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "0" }
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
