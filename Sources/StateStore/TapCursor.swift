/// A place in the tap history, between two taps: the `(time, id)` of the last tap of a page, from which the next
/// page goes on along the `taps_time` index (keyset pagination, never `OFFSET`; docs/console.md, "Door log").
public struct TapCursor: Sendable, Hashable, CustomStringConvertible {
    /// The tap's time, in milliseconds since 1970.
    public var time: Int64
    /// The tap's row id.
    public var id: Int64

    /// Creates a cursor.
    /// - Parameters:
    ///   - time: milliseconds since 1970.
    ///   - id: the row id.
    public init(time: Int64, id: Int64) {
        self.time = time
        self.id = id
    }

    /// Reads `TIME.ID` (what ``description`` writes); nil for anything else.
    /// - Parameter text: the text.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let time = Int64(parts[0]), let id = Int64(parts[1]) else { return nil }
        self.init(time: time, id: id)
    }

    /// `TIME.ID`.
    public var description: String { "\(time).\(id)" }
}
