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
        if (0...9999).contains(year) {
            // Written byte by byte: no intermediate strings (`history --format` writes one per tap).
            let fields = [
                (year, 4), (Int(parts.tm_mon) + 1, 2), (Int(parts.tm_mday), 2), (Int(parts.tm_hour), 2),
                (Int(parts.tm_min), 2), (Int(parts.tm_sec), 2), (millis, 3),
            ]
            let separators: [UInt8] = Array("--T::.Z".utf8)
            return String(unsafeUninitializedCapacity: 24) { buffer in
                var index = 0
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
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(millis, 3))Z"
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
