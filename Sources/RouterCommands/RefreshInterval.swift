public import ArgumentParser

/// The least a ``BoundedInterval`` may be.
public protocol IntervalBound: Sendable {
    /// The shortest interval accepted.
    static var shortest: Duration { get }
}

/// At least one minute: how often live association files are checked again.
public enum AtLeastOneMinute: IntervalBound {
    /// One minute.
    public static let shortest: Duration = .seconds(60)
}

/// At least one second: how often a host polls its bundle sources.
public enum AtLeastOneSecond: IntervalBound {
    /// One second.
    public static let shortest: Duration = .seconds(1)
}

/// A duration option with a lower bound (`run --aasa-refresh`, `run --bundle-poll`): a ``DurationArgument`` of at
/// least `Bound.shortest`, kept as written.
public struct BoundedInterval<Bound: IntervalBound>: Sendable, Hashable, ExpressibleByArgument,
    CustomStringConvertible
{
    /// The interval.
    public var duration: Duration
    /// The interval as written.
    public var description: String

    /// Parses an interval.
    /// - Parameter argument: the duration as written (`24h`, `90m`, `5s`).
    /// - Returns: nil when it is not a duration of at least `Bound.shortest`.
    public init?(argument: String) {
        guard let parsed = DurationArgument(argument: argument), parsed.duration >= Bound.shortest else { return nil }
        self.duration = parsed.duration
        self.description = argument
    }
}

/// How often live association files are checked again (`run --aasa-refresh`): at least one minute.
public typealias RefreshInterval = BoundedInterval<AtLeastOneMinute>

/// How often a host polls its bundle sources (`run --bundle-poll`): at least one second.
public typealias BundlePollInterval = BoundedInterval<AtLeastOneSecond>

extension BoundedInterval where Bound == AtLeastOneMinute {
    /// The default refresh, 24 hours.
    public static var daily: Self { Self(argument: "24h")! }
}

extension BoundedInterval where Bound == AtLeastOneSecond {
    /// The default poll, one minute.
    public static var minute: Self { Self(argument: "60s")! }
}
