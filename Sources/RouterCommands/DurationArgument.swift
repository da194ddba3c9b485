public import ArgumentParser
import TagRules

/// A duration given on the command line, such as `500ms`, `10s`, `2m` or `24h` (`DurationText`): `emulate --hold`.
public struct DurationArgument: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The duration.
    public var duration: Duration
    /// The duration as written.
    public var description: String

    /// Parses a duration.
    /// - Parameter argument: the duration as written.
    /// - Returns: nil when it is not a duration such as 500ms, 10s or 2m.
    public init?(argument: String) {
        guard let duration = DurationText.parse(argument) else { return nil }
        self.duration = duration
        self.description = argument
    }
}
