/// How much tap history the state database keeps: taps older than ``maxAge`` go, and the oldest taps go while the
/// database's pages in use exceed ``maxBytes``, whichever limit is reached first (docs/operations.md,
/// "Retention of the history").
public struct HistoryRetention: Sendable, Hashable {
    /// Taps older than this are pruned.
    public var maxAge: Duration
    /// The most bytes of database pages in use (page size × pages not on the free list) before the oldest taps
    /// are pruned.
    public var maxBytes: Int64

    /// The default: a year (365 days) or 1 GB (10⁹ bytes), whichever comes first.
    public static let `default` = HistoryRetention(maxAge: .seconds(365 * 86_400), maxBytes: 1_000_000_000)

    /// Creates a retention.
    /// - Parameters:
    ///   - maxAge: how long a tap is kept.
    ///   - maxBytes: how many bytes of pages in use the database may hold before the oldest taps are pruned.
    public init(maxAge: Duration, maxBytes: Int64) {
        self.maxAge = maxAge
        self.maxBytes = maxBytes
    }
}
