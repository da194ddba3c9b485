public import StateStore

/// One tap as the console's Live page shows it: the history row the router records for it, with what the row
/// does not keep (docs/console.md, "Live").
public struct LiveTap: Sendable, Hashable {
    /// The tap as the door log records it.
    public var record: TapRecord
    /// The tag's technology (`type2`, …), if it was read.
    public var tech: String?
    /// From the reader's event to the dispatch, for a tap that was dispatched or refused.
    public var latency: Duration?
    /// Whether the reader was held for an enrollment (`tagrouter learn`, or the console's Tags page) and nothing
    /// was done.
    public var isHeldForEnrollment: Bool

    /// Creates a live tap.
    /// - Parameters:
    ///   - record: the history row.
    ///   - tech: the technology.
    ///   - latency: event to dispatch.
    ///   - isHeldForEnrollment: held for an enrollment.
    public init(record: TapRecord, tech: String? = nil, latency: Duration? = nil, isHeldForEnrollment: Bool = false) {
        self.record = record
        self.tech = tech
        self.latency = latency
        self.isHeldForEnrollment = isHeldForEnrollment
    }
}

/// Where the router hands each tap's outcome for the console (``LiveFeed``): called on the tap's thread, it must
/// return at once and never block (docs/console.md, "Live").
public protocol LiveTapSink: Sendable {
    /// Takes one tap.
    /// - Parameter tap: the tap.
    func publish(_ tap: LiveTap)
}
