/// The readers present, and the presentation and cooldown bookkeeping of each (docs/rules.md, "Presentations and
/// cooldown"): the one owner of reader state in the router.
///
/// A value type with no I/O: the router feeds it reader events and tag identities and does what the returned
/// actions say. See `Presentations+StateMachine.swift` for the events.
public struct Presentations: Sendable {
    /// A presentation in progress on one reader.
    struct Current: Sendable, Hashable {
        /// The reader's event counter when the card was reported.
        var eventCount: UInt16
        /// A number identifying this presentation, unique for the lifetime of the value.
        var serial: UInt64
        /// Whether a dispatch (or its suppression) was already decided for it.
        var isSettled: Bool
    }

    /// Where cooldown is remembered: one reader, one tag.
    struct CooldownKey: Sendable, Hashable {
        var reader: String
        var identity: TagIdentity
    }

    /// The readers being watched.
    public internal(set) var readers: Set<String> = []
    /// The presentation in progress per reader.
    var current: [String: Current] = [:]
    /// The time of the last dispatch per (reader, tag), pruned once older than the longest cooldown seen.
    var lastDispatch: [CooldownKey: ContinuousClock.Instant] = [:]
    /// The longest cooldown asked for so far: entries older than it can never suppress again.
    var longestCooldown: Duration = .zero
    /// The next presentation serial.
    var nextSerial: UInt64 = 1
    /// How many dispatches were recorded since the last prune.
    var dispatchesSincePrune = 0

    /// Creates empty bookkeeping.
    public init() {}

    /// The number of (reader, tag) pairs remembered for cooldown; bounded by pruning.
    public var rememberedCount: Int { lastDispatch.count }
}
