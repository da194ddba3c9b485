public import ArgumentParser

/// A count of at least one (`run --concurrency`, `history --limit`).
public struct PositiveCount: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The count.
    public var value: Int

    /// Creates a count.
    /// - Parameter value: the count, at least 1.
    public init(_ value: Int) {
        precondition(value >= 1, "a positive count is at least 1")
        self.value = value
    }

    /// Parses a count.
    /// - Parameter argument: the digits.
    /// - Returns: nil when it is not a whole number of at least 1.
    public init?(argument: String) {
        guard let value = Int(argument), value >= 1 else { return nil }
        self.value = value
    }

    /// The count in digits.
    public var description: String { "\(value)" }
}
