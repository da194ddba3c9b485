import Foundation

/// RFC 3339 timestamps in UTC with milliseconds.
enum RFC3339 {
    static func format(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }
}
