public import Foundation

/// Time formatting shared by event documents, logs and history.
public enum Timestamp {
    /// RFC 3339 in UTC with milliseconds: `2026-11-22T12:00:00.123Z`.
    /// - Parameter date: the instant.
    /// - Returns: the formatted time.
    public static func rfc3339(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        return rfc3339(milliseconds: milliseconds)
    }

    /// RFC 3339 in UTC with milliseconds, from milliseconds since 1970.
    /// - Parameter milliseconds: milliseconds since 1970-01-01T00:00:00Z.
    /// - Returns: the formatted time.
    public static func rfc3339(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        // Written byte by byte, with no intermediate strings (`history --format` writes one per tap). A year
        // outside RFC 3339's 0000-9999 keeps all its digits and its sign rather than being cut.
        let yearDigits = max(4, String(abs(year)).utf8.count)
        let fields = [
            (abs(year), yearDigits), (Int(parts.tm_mon) + 1, 2), (Int(parts.tm_mday), 2), (Int(parts.tm_hour), 2),
            (Int(parts.tm_min), 2), (Int(parts.tm_sec), 2), (millis, 3),
        ]
        let separators: [UInt8] = Array("--T::.Z".utf8)
        return String(unsafeUninitializedCapacity: 21 + yearDigits) { buffer in
            var index = 0
            if year < 0 {
                buffer[0] = UInt8(ascii: "-")
                index = 1
            }
            for (position, (value, width)) in fields.enumerated() {
                var rest = value
                for digit in stride(from: width - 1, through: 0, by: -1) {
                    buffer[index + digit] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                index += width
                buffer[index] = separators[position]
                index += 1
            }
            return index
        }
    }

    /// Milliseconds since 1970 of `date`.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

extension Int64 {
    /// Division rounding towards negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
