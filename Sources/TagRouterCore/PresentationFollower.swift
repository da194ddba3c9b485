import Synchronization
import TagRules

/// Follows the presentations whose tap dispatched a rule with an `on:` block and decides their later events
/// (docs/rules.md, "Tags that stay on the reader"):
///
/// - `removed` once the tag has been away for the grace (the longest `after` of the presentation's rules, 1 s by
///   default). The same tag back on the same reader within the grace continues the presentation: a wobble or a
///   flaky read fires nothing. A card still being read when the grace ends (or one that could not be read)
///   holds the decision until it is identified or taken away.
/// - `held` once the tag has stayed on the reader for the rule's `for`.
/// - `returned` when the same tag comes back to the same reader within `within` after a `removed`: the router
///   then runs the `returned` actions of those rules instead of their tap actions, in the same presentation.
///
/// It decides; the router carries out, through `perform`. The events of one presentation run one after the
/// other, the tap's actions first, whatever the timing (a `removed` while the tap's command still runs waits for
/// it). While pcscd is away its removals and re-presentations are not evidence: removals wait for the first
/// heartbeat after it is back, so a tag that stayed on the reader through a pcscd restart fires nothing. Timers
/// are tasks of their own; ``stop()`` cancels them, so a router that stops fires nothing for the tags still
/// present.
final class PresentationFollower: Sendable {
    /// One later event to carry out.
    struct Event: Sendable {
        /// Which event, its presentation id and how long the tag had been on the reader.
        var context: PresentationContext
        /// The tag as its tap read it: later events do not read it again.
        var tag: ReadTag
        /// The rules that have this event, in rule order.
        var rules: [Rule]
    }

    /// What a tag that was just read means for the presentations followed on its reader.
    enum Arrival: Sendable, Equatable {
        /// Nothing followed: a tap as usual.
        case tap
        /// The same tag came back within the grace: the presentation goes on; no tap, no event.
        case continued(presentationID: String)
        /// The same tag came back within a `returned` window: the presentation goes on with the `returned` actions
        /// of the rules that have them.
        case returned(presentationID: String)
    }

    /// Carries out one later event (the router: render, dispatch, report).
    typealias Perform = @Sendable (Event) async -> Void

    /// Calls `fire` at `deadline` unless the returned cancel is called first. The router's sleeps on the
    /// continuous clock (``sleeping(until:fire:)``); tests drive a virtual clock instead.
    typealias Schedule =
        @Sendable (_ deadline: ContinuousClock.Instant, _ fire: @escaping @Sendable () -> Void) -> @Sendable () -> Void

    /// The router's timers: a task sleeping until the deadline.
    static let sleeping: Schedule = { deadline, fire in
        let task = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            guard !Task.isCancelled else { return }
            fire()
        }
        return { task.cancel() }
    }

    private struct Followed {
        var id: String
        /// Carries out its events.
        var perform: Perform
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
        /// Bumped at every change of presence: a timer set for an older generation does nothing.
        var generation = 0
        /// The `held` timers of this stay: they end with the presentation.
        var heldTimers: [UInt64] = []

        /// The longest `after` of the rules with `removed`, 1 s when none has it.
        var grace: Duration { rules.compactMap { $0.on.removed?.timing }.max() ?? .seconds(1) }
        /// The longest `within` of the rules with `returned`; `nil` when none has it.
        var window: Duration? { rules.compactMap { $0.on.returned?.timing }.max() }
    }

    private struct ReturnKey: Hashable {
        var reader: String
        var identity: TagIdentity
    }

    private struct State {
        /// The followed presentation per reader: present, or taken away and within its grace.
        var present: [String: Followed] = [:]
        /// Presentations whose `removed` fired and whose `returned` window is open, with when it closes.
        var gone: [ReturnKey: (followed: Followed, until: ContinuousClock.Instant)] = [:]
        /// Readers with a card reported and not yet identified (being read, or unreadable).
        var unidentified: [String: UInt64] = [:]
        /// pcscd is away, or back and its readers not yet reported again.
        var isServiceAway = false
        /// pcscd came back since it went away.
        var isServiceBack = false
        /// The last task of each presentation's chain: the next event waits for it.
        var chains: [String: (token: UInt64, task: Task<Void, Never>)] = [:]
        var nextToken: UInt64 = 0
        /// The cancel of each timer set and not yet fired.
        var timers: [UInt64: @Sendable () -> Void] = [:]
        var isStopped = false
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> ContinuousClock.Instant
    private let schedule: Schedule

    /// At most this many closed presentations wait for a return; the oldest are forgotten first.
    static let returnableLimit = 4_096

    /// Creates a follower.
    /// - Parameters:
    ///   - now: the clock.
    ///   - schedule: sets a timer on that clock.
    init(
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, schedule: @escaping Schedule = sleeping
    ) {
        self.now = now
        self.schedule = schedule
    }

    // MARK: Reader events

    /// A card was reported on a reader and is being read.
    func cardPresented(reader: String, serial: UInt64) {
        state.withLock { $0.unidentified[reader] = serial }
    }

    /// A card left a reader (taken away, or its reader unplugged).
    func cardLeft(reader: String) {
        let instant = now()
        state.withLock { state in
            state.unidentified[reader] = nil
            guard var followed = state.present[reader] else { return }
            if followed.leftAt == nil {
                followed.leftAt = instant
                followed.generation += 1
                state.present[reader] = followed
                if !state.isServiceAway { schedule(grace: followed, in: &state) }
            } else if followed.isDeferred {
                // The card that held the decision left without being identified: the followed tag is gone.
                close(reader: reader, at: instant, in: &state)
            }
        }
    }

    /// pcscd went away: removals are not evidence until it is back and its readers reported.
    func serviceLost() {
        state.withLock { state in
            state.isServiceAway = true
            state.isServiceBack = false
        }
    }

    /// pcscd is back; its readers and cards are being reported again.
    func serviceBack() {
        state.withLock { $0.isServiceBack = true }
    }

    /// The watcher is waiting: after pcscd came back, the readers and cards present have been reported, so the
    /// removals seen while it was away start their grace now.
    func heartbeat() {
        state.withLock { state in
            guard state.isServiceAway, state.isServiceBack else { return }
            state.isServiceAway = false
            for followed in state.present.values where followed.leftAt != nil && !followed.isDeferred {
                schedule(grace: followed, in: &state)
            }
        }
    }

    // MARK: Taps

    /// A tag was read on a reader: whether it continues or returns to a followed presentation. A different tag on
    /// a reader whose followed presentation waits for a decision closes that presentation.
    func arrived(reader: String, serial: UInt64, identity: TagIdentity) -> Arrival {
        let instant = now()
        return state.withLock { state -> Arrival in
            if state.unidentified[reader] == serial { state.unidentified[reader] = nil }
            if var followed = state.present[reader], followed.leftAt != nil {
                if followed.identity == identity {
                    followed.leftAt = nil
                    followed.isDeferred = false
                    followed.generation += 1
                    state.present[reader] = followed
                    return .continued(presentationID: followed.id)
                }
                if followed.isDeferred { close(reader: reader, at: instant, in: &state) }
            }
            let key = ReturnKey(reader: reader, identity: identity)
            if let (followed, until) = state.gone[key] {
                state.gone[key] = nil
                if instant <= until { return .returned(presentationID: followed.id) }
            }
            return .tap
        }
    }

    /// The tap (or return) of a presentation is being dispatched with rules that have an `on:` block: follow it.
    /// Its later events wait until `tapDone` opens, when the tap's actions have finished.
    /// - Parameters:
    ///   - id: the presentation id (the tap's event id, or the returning presentation's).
    ///   - tag: the tag as read.
    ///   - rules: the matched rules with an `on:` block.
    ///   - start: when the card was reported.
    ///   - tapDone: opened when the tap's actions have finished.
    ///   - perform: carries out the later events.
    func follow(
        id: String, tag: ReadTag, rules: [Rule], start: ContinuousClock.Instant, tapDone: Gate,
        perform: @escaping Perform
    ) {
        state.withLock { state in
            guard !state.isStopped else { return }
            let followed = Followed(
                id: id, perform: perform, reader: tag.tag.reader, identity: tag.identity, tag: tag, rules: rules,
                start: start)
            if let waiting = state.present[followed.reader], waiting.id != id {
                // Another tag's presentation was in its grace on this reader: a new tag was put down, so it is
                // over now.
                close(reader: waiting.reader, at: now(), in: &state)
            }
            var following = followed
            chain(id: id, in: &state) { await tapDone.wait() }
            for rule in rules {
                guard let held = rule.on.held else { continue }
                let reader = followed.reader
                let timer = setTimer(at: start + held.timing, in: &state) { [weak self] in
                    self?.heldTimerFired(reader: reader, id: id, start: start, rule: rule)
                }
                if let timer { following.heldTimers.append(timer) }
            }
            state.present[followed.reader] = following
        }
    }

    /// Cancels every timer; the events already started run to their end (the router's shutdown budget bounds
    /// them). Nothing more is decided.
    func stop() async {
        let running = state.withLock { state in
            state.isStopped = true
            state.timers.values.forEach { $0() }
            state.timers = [:]
            return state.chains.values.map(\.task)
        }
        // Cancelled past the shutdown budget: the events' commands are then killed, as a tap's are.
        await withTaskCancellationHandler {
            for task in running { await task.value }
        } onCancel: {
            running.forEach { $0.cancel() }
        }
    }

    /// How many presentations are followed on a reader: present, or in their grace.
    var presentCount: Int {
        state.withLock { $0.present.count }
    }

    // MARK: Timers

    private func schedule(grace followed: Followed, in state: inout State) {
        let reader = followed.reader
        let generation = followed.generation
        setTimer(at: now() + followed.grace, in: &state) { [weak self] in
            self?.graceEnded(reader: reader, generation: generation)
        }
    }

    private func graceEnded(reader: String, generation: Int) {
        let instant = now()
        state.withLock { state in
            guard var followed = state.present[reader], followed.generation == generation,
                let _ = followed.leftAt, !state.isServiceAway
            else { return }
            if state.unidentified[reader] != nil {
                followed.isDeferred = true
                state.present[reader] = followed
                return
            }
            close(reader: reader, at: instant, in: &state)
        }
    }

    private func heldTimerFired(reader: String, id: String, start: ContinuousClock.Instant, rule: Rule) {
        let instant = now()
        state.withLock { state in
            guard let followed = state.present[reader], followed.id == id, followed.start == start,
                followed.leftAt == nil, !state.isStopped
            else { return }
            let event = Event(
                context: PresentationContext(kind: .held, presentationID: id, presentedFor: instant - start),
                tag: followed.tag, rules: [rule])
            chain(id: id, in: &state) { [perform = followed.perform] in await perform(event) }
        }
    }

    /// The followed presentation on `reader` is over: its `removed` (for the rules that have it), and a return
    /// window when a rule has `returned`.
    private func close(reader: String, at instant: ContinuousClock.Instant, in state: inout State) {
        guard let followed = state.present.removeValue(forKey: reader), !state.isStopped else { return }
        for token in followed.heldTimers { state.timers.removeValue(forKey: token)?() }
        let leftAt = followed.leftAt ?? instant
        if let window = followed.window {
            // Windows that closed are forgotten; past the limit, the one closing soonest goes too.
            state.gone = state.gone.filter { $0.value.until >= instant }
            if state.gone.count >= Self.returnableLimit,
                let soonest = state.gone.min(by: { $0.value.until < $1.value.until })?.key
            {
                state.gone[soonest] = nil
            }
            state.gone[ReturnKey(reader: reader, identity: followed.identity)] = (followed, instant + window)
        }
        let rules = followed.rules.filter { $0.on.removed != nil }
        guard !rules.isEmpty else { return }
        let event = Event(
            context: PresentationContext(
                kind: .removed, presentationID: followed.id, presentedFor: leftAt - followed.start),
            tag: followed.tag, rules: rules)
        chain(id: followed.id, in: &state) { [perform = followed.perform] in await perform(event) }
    }

    // MARK: Chains and timers

    /// Appends work to a presentation's chain: it starts once the chain's last task has finished.
    private func chain(id: String, in state: inout State, _ work: @escaping @Sendable () async -> Void) {
        let previous = state.chains[id]?.task
        let token = state.nextToken
        state.nextToken += 1
        let task = Task { [weak self] in
            await previous?.value
            await work()
            self?.chainEnded(id: id, token: token)
        }
        state.chains[id] = (token, task)
    }

    private func chainEnded(id: String, token: UInt64) {
        state.withLock { state in
            if state.chains[id]?.token == token { state.chains[id] = nil }
        }
    }

    /// Sets a timer; returns its token (to cancel it with `state.timers`), nil once stopped.
    @discardableResult
    private func setTimer(
        at deadline: ContinuousClock.Instant, in state: inout State, _ fire: @escaping @Sendable () -> Void
    ) -> UInt64? {
        guard !state.isStopped else { return nil }
        let token = state.nextToken
        state.nextToken += 1
        state.timers[token] = schedule(deadline) { [weak self] in
            guard let self, self.state.withLock({ $0.timers.removeValue(forKey: token) }) != nil else { return }
            fire()
        }
        return token
    }

    /// How many timers are set and not yet fired or cancelled (for tests: timers end with their presentation).
    var timerCount: Int {
        state.withLock { $0.timers.count }
    }
}

/// Opens once; every waiter before or after that goes on.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Opens the gate.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
