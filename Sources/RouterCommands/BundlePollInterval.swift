public import ArgumentParser

/// How often a host polls its bundle sources (`run --bundle-poll`): a duration of at least one second.
public struct BundlePollInterval: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The shortest interval.
    public static let shortest: Duration = .seconds(1)

    /// The interval.
    public var duration: Duration
    /// The interval as written.
    public var description: String

    /// Parses an interval.
    /// - Parameter argument: the duration as written (`60s`, `5m`).
    /// - Returns: nil when it is not a duration of at least 1s.
    public init?(argument: String) {
        guard let parsed = DurationArgument(argument: argument), parsed.duration >= Self.shortest else { return nil }
        self.duration = parsed.duration
        self.description = argument
    }

    /// The default, one minute.
    public static var minute: BundlePollInterval { BundlePollInterval(argument: "60s")! }
}
