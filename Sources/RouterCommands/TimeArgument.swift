public import ArgumentParser
public import Foundation

/// An instant given on the command line in RFC 3339, such as `2026-12-01T20:00:00+01:00` or
/// `2026-12-01T19:00:00Z` (fractional seconds allowed): `match --at`.
public struct TimeArgument: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The instant.
    public var date: Date
    /// The instant as written.
    public var description: String

    /// Parses an instant.
    /// - Parameter argument: the instant as written.
    /// - Returns: nil when it is not RFC 3339 with a zone (`Z` or `±HH:MM`).
    public init?(argument: String) {
        guard let date = Self.parse(argument) else { return nil }
        self.date = date
        self.description = argument
    }

    private static func parse(_ text: String) -> Date? {
        var strategy = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? strategy.parse(text) { return date }
        strategy = Date.ISO8601FormatStyle()
        return try? strategy.parse(text)
    }
}
