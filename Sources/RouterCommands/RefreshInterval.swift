public import ArgumentParser

/// How often live association files are checked again (`run --aasa-refresh`): a duration of at least one minute.
public struct RefreshInterval: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The shortest interval.
    public static let shortest: Duration = .seconds(60)

    /// The interval.
    public var duration: Duration
    /// The interval as written.
    public var description: String

    /// Parses an interval.
    /// - Parameter argument: the duration as written (`24h`, `90m`).
    /// - Returns: nil when it is not a duration of at least 1m.
    public init?(argument: String) {
        guard let parsed = DurationArgument(argument: argument), parsed.duration >= Self.shortest else { return nil }
        self.duration = parsed.duration
        self.description = argument
    }

    /// The default, 24 hours.
    public static var daily: RefreshInterval { RefreshInterval(argument: "24h")! }
}
