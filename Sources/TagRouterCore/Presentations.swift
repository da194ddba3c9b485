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
    /// The time of the last dispatch per (reader, tag), pruned once older than the longest cooldown seen, and
    /// never more than ``rememberedLimit`` entries (plus the dispatches since the last prune).
    var lastDispatch: [CooldownKey: ContinuousClock.Instant] = [:]
    /// The longest cooldown asked for so far: entries older than it can never suppress again.
    var longestCooldown: Duration = .zero
    /// The next presentation serial.
    var nextSerial: UInt64 = 1
    /// How many dispatches were recorded since the last prune.
    var dispatchesSincePrune = 0

    /// At most this many (reader, tag) pairs are kept after a prune: a long cooldown with a new tag every tap
    /// (phones present a random UID each time) would otherwise keep every tag of the cooldown's span.
    let rememberedLimit: Int

    /// How many dispatches are recorded between two prunes.
    static let pruneInterval = 256

    /// Creates empty bookkeeping.
    /// - Parameter rememberedLimit: the most (reader, tag) pairs kept for cooldown after a prune (4,096 by
    ///   default); past it, the oldest dispatches are forgotten first, even inside their cooldown.
    public init(rememberedLimit: Int = 4096) {
        self.rememberedLimit = max(1, rememberedLimit)
    }

    /// The number of (reader, tag) pairs remembered for cooldown; bounded by pruning: at most
    /// `rememberedLimit` plus the dispatches since the last prune (fewer than 256).
    public var rememberedCount: Int { lastDispatch.count }
}
