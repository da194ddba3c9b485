/// The `history:` block of a rules file: how much tap history the router keeps (docs/operations.md, "Retention of
/// the history"). At most one in a rule set; a key left out keeps its default (a year, 1 GB).
public struct HistorySettings: Sendable, Hashable {
    /// `keep`: taps older than this are pruned; nil for the default.
    public var keep: Duration?
    /// `maxSize` in bytes: past it the oldest taps are pruned; nil for the default.
    public var maxSize: Int64?
    /// Where the block is written.
    public var location: SourceLocation

    /// Creates settings.
    /// - Parameters:
    ///   - keep: how long taps are kept; nil for the default.
    ///   - maxSize: the most bytes of history; nil for the default.
    ///   - location: where the block is written.
    public init(keep: Duration?, maxSize: Int64?, location: SourceLocation) {
        self.keep = keep
        self.maxSize = maxSize
        self.location = location
    }
}
