public import ArgumentParser
public import Foundation
import TagRules

/// `history --since` and `--until`: an RFC 3339 time with its offset (`2026-11-29T10:00:00+01:00`,
/// `2026-11-29T09:00:00Z`) or a span back from now (`2h`, `30m`, `7d`: ``TagRules/DurationText``).
public enum HistoryTimeArgument: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// An instant.
    case instant(Date, written: String)
    /// A span back from the time the command runs.
    case ago(Duration, written: String)

    /// Parses a time.
    /// - Parameter argument: the time as written.
    /// - Returns: nil when it is neither RFC 3339 with an offset nor a duration such as 2h.
    public init?(argument: String) {
        if let time = TimeArgument(argument: argument) {
            self = .instant(time.date, written: argument)
        } else if let span = DurationText.parse(argument) {
            self = .ago(span, written: argument)
        } else {
            return nil
        }
    }

    /// The instant, a span being counted back from `now`.
    /// - Parameter now: when the command runs.
    /// - Returns: the instant.
    public func date(now: Date) -> Date {
        switch self {
        case .instant(let date, _): date
        case .ago(let span, _):
            now - (Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18)
        }
    }

    /// The time as written.
    public var description: String {
        switch self {
        case .instant(_, let written), .ago(_, let written): written
        }
    }
}
