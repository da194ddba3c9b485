public import TagRules

/// The readers present and everything the router knows about the tags on them (docs/rules.md, "Presentations and
/// cooldown" and "Tags that stay on the reader"): the one owner of reader state in the router.
///
/// A value type with no I/O and no clock of its own: the router feeds it reader events, tag identities and the
/// time, and carries out the ``Effect``s it leaves (``takeEffects()``): set or cancel a timer, run a later event
/// of a presentation, tell who follows the readers what changed. `Presentations+StateMachine.swift` holds the
/// reader events and cooldown, `Presentations+Following.swift` the later events (`removed`, `held`, `returned`).
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

    /// Where cooldown is remembered, and a closed presentation waits for its return: one reader, one tag.
    struct ReaderTag: Sendable, Hashable {
        var reader: String
        var identity: TagIdentity
    }

    /// What the router does once the value has changed, in order.
    public enum Effect: Sendable {
        /// Call ``Presentations/timerFired(_:now:)`` with this id at this time, unless cancelled first.
        case setTimer(UInt64, at: ContinuousClock.Instant)
        /// The timer with this id is no longer wanted.
        case cancelTimer(UInt64)
        /// Carry out a later event, after the events of its presentation before it (the tap's actions first).
        case fire(LaterEvent)
        /// Every reader present now, and whether a tag is on it (Home Assistant discovery, the presence sensor).
        case readersChanged([String: Bool])
    }

    /// One later event of a followed presentation, to carry out.
    public struct LaterEvent: Sendable {
        /// Which event, its presentation id and how long the tag had been on the reader.
        public var context: PresentationContext
        /// The tag as its tap read it: later events do not read it again.
        public var tag: ReadTag
        /// The rules that have this event, in rule order.
        public var rules: [Rule]
    }

    /// A presentation whose tap dispatched rules with an `on:` block, followed for its later events.
    struct Followed: Sendable {
        var id: String
        var reader: String
        var identity: TagIdentity
        var tag: ReadTag
        /// The matched rules that have an `on:` block, in rule order.
        var rules: [Rule]
        /// When the tag was put on the reader this time (a return starts a new stay).
        var start: ContinuousClock.Instant
        /// When it was taken away; `nil` while it is present.
        var leftAt: ContinuousClock.Instant?
        /// When the grace ended with a card still unidentified on the reader: the decision waits for that card.
        var isDeferred = false
        /// Bumped at every change of presence: a grace timer set for an older generation does nothing.
        var generation = 0
        /// The `held` timers of this stay: they end with the presentation.
        var heldTimers: [UInt64] = []

        /// The longest `after` of the rules with `removed`, 1 s when none has it.
        var grace: Duration { rules.compactMap { $0.on.removed?.timing }.max() ?? .seconds(1) }
        /// The longest `within` of the rules with `returned`; `nil` when none has it.
        var window: Duration? { rules.compactMap { $0.on.returned?.timing }.max() }
    }

    /// What a timer set by the value is for.
    enum TimerPurpose: Sendable {
        /// The grace of the followed presentation on `reader` ends, if it is still the same `generation`.
        case grace(reader: String, generation: Int)
        /// A stay's `held` time is reached for `rule`.
        case held(reader: String, id: String, start: ContinuousClock.Instant, rule: Rule)
    }

    // MARK: Readers and cooldown

    /// The readers being watched.
    public internal(set) var readers: Set<String> = []
    /// The presentation in progress per reader.
    var current: [String: Current] = [:]
    /// The time of the last dispatch per (reader, tag), pruned once older than the longest cooldown seen, and
    /// never more than ``rememberedLimit`` entries (plus the dispatches since the last prune).
    var lastDispatch: [ReaderTag: ContinuousClock.Instant] = [:]
    /// The longest cooldown asked for so far: entries older than it can never suppress again.
    var longestCooldown: Duration = .zero
    /// The next presentation serial.
    var nextSerial: UInt64 = 1
    /// How many dispatches were recorded since the last prune.
    var dispatchesSincePrune = 0

    // MARK: Followed presentations

    /// The followed presentation per reader: present, or taken away and within its grace.
    var followed: [String: Followed] = [:]
    /// Presentations whose `removed` fired and whose `returned` window is open, with when it closes.
    var gone: [ReaderTag: (followed: Followed, until: ContinuousClock.Instant)] = [:]
    /// Readers with a card reported and not yet identified (being read, or unreadable).
    var unidentified: [String: UInt64] = [:]
    /// pcscd is away, or back and its readers not yet reported again: removals are not evidence meanwhile.
    var isServiceAway = false
    /// pcscd came back since it went away.
    var isServiceBack = false
    /// The timers set and not yet fired or cancelled.
    var timers: [UInt64: TimerPurpose] = [:]
    /// The next timer id.
    var nextTimer: UInt64 = 0
    /// Nothing more is decided once the router stops.
    var isStopped = false

    // MARK: Effects

    /// What the router has yet to carry out.
    var effects: [Effect] = []
    /// The readers and their presence as last told (``Effect/readersChanged(_:)``).
    var toldReaders: [String: Bool] = [:]

    /// At most this many (reader, tag) pairs are kept after a prune: a long cooldown with a new tag every tap
    /// (phones present a random UID each time) would otherwise keep every tag of the cooldown's span.
    let rememberedLimit: Int

    /// How many dispatches are recorded between two prunes.
    static let pruneInterval = 256
    /// At most this many closed presentations wait for a return; the oldest are forgotten first.
    static let returnableLimit = 4_096

    /// Creates empty bookkeeping.
    /// - Parameter rememberedLimit: the most (reader, tag) pairs kept for cooldown after a prune (4,096 by
    ///   default); past it, the oldest dispatches are forgotten first, even inside their cooldown.
    public init(rememberedLimit: Int = 4096) {
        self.rememberedLimit = max(1, rememberedLimit)
    }

    /// The number of (reader, tag) pairs remembered for cooldown; bounded by pruning: at most
    /// `rememberedLimit` plus the dispatches since the last prune (fewer than 256).
    public var rememberedCount: Int { lastDispatch.count }

    /// Every reader present and whether a tag is on it.
    public var readerPresence: [String: Bool] {
        Dictionary(uniqueKeysWithValues: readers.map { ($0, current[$0] != nil) })
    }

    /// Hands over what the router has to carry out since the last call, in order.
    public mutating func takeEffects() -> [Effect] {
        defer { effects = [] }
        return effects
    }

    /// Tells the readers' presence when it changed since it was last told.
    mutating func tellReaders() {
        let presence = readerPresence
        guard presence != toldReaders else { return }
        toldReaders = presence
        effects.append(.readersChanged(presence))
    }
}
