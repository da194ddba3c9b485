public import TagRules

/// The presentations whose tap dispatched a rule with an `on:` block, and their later events (docs/rules.md, "Tags
/// that stay on the reader"):
///
/// - `removed` once the tag has been away for the grace (the longest `after` of the presentation's rules, 1 s by
///   default). The same tag back on the same reader within the grace continues the presentation: a wobble or a
///   flaky read fires nothing. A card still being read when the grace ends (or one that could not be read)
///   holds the decision until it is identified or taken away.
/// - `held` once the tag has stayed on the reader for the rule's `for`.
/// - `returned` when the same tag comes back to the same reader within `within` after a `removed`: the router
///   then runs the `returned` actions of those rules instead of their tap actions, in the same presentation.
///
/// The value decides; the router sets the timers it asks for and carries out the events it fires, the events of
/// one presentation one after the other, the tap's actions first. While pcscd is away its removals and
/// re-presentations are not evidence: removals wait for the first heartbeat after it is back, so a tag that stayed
/// on the reader through a pcscd restart fires nothing. Once stopped, nothing more is decided.
extension Presentations {
    /// What a tag that was just read means for the presentations followed on its reader.
    public enum Arrival: Sendable, Equatable {
        /// Nothing followed: a tap as usual.
        case tap
        /// The same tag came back within the grace: the presentation goes on; no tap, no event.
        case continued(presentationID: String)
        /// The same tag came back within a `returned` window: the presentation goes on with the `returned` actions
        /// of the rules that have them.
        case returned(presentationID: String)
    }

    /// A card left a reader (taken away, or its reader unplugged).
    mutating func cardLeft(reader: String, now: ContinuousClock.Instant) {
        unidentified[reader] = nil
        guard var presentation = followed[reader] else { return }
        if presentation.leftAt == nil {
            presentation.leftAt = now
            presentation.generation += 1
            followed[reader] = presentation
            if !isServiceAway { startGrace(of: presentation, now: now) }
        } else if presentation.isDeferred {
            // The card that held the decision left without being identified: the followed tag is gone.
            close(reader: reader, at: now)
        }
    }

    /// pcscd went away: removals are not evidence until it is back and its readers reported.
    public mutating func serviceLost() {
        isServiceAway = true
        isServiceBack = false
    }

    /// pcscd is back; its readers and cards are being reported again.
    public mutating func serviceBack() {
        isServiceBack = true
    }

    /// The watcher is waiting: after pcscd came back, the readers and cards present have been reported, so the
    /// removals seen while it was away start their grace now.
    /// - Parameter now: the current time.
    public mutating func heartbeat(now: ContinuousClock.Instant) {
        guard isServiceAway, isServiceBack else { return }
        isServiceAway = false
        for presentation in followed.values where presentation.leftAt != nil && !presentation.isDeferred {
            startGrace(of: presentation, now: now)
        }
    }

    /// A tag was read on a reader: whether it continues or returns to a followed presentation. A different tag on
    /// a reader whose followed presentation waits for a decision closes that presentation.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - serial: the presentation serial ``cardPresented(reader:eventCount:)`` returned.
    ///   - identity: the tag's identity.
    ///   - now: the current time.
    /// - Returns: a tap, a continued presentation or a return.
    public mutating func arrived(
        reader: String, serial: UInt64, identity: TagIdentity, now: ContinuousClock.Instant
    ) -> Arrival {
        if unidentified[reader] == serial { unidentified[reader] = nil }
        if var presentation = followed[reader], presentation.leftAt != nil {
            if presentation.identity == identity {
                presentation.leftAt = nil
                presentation.isDeferred = false
                presentation.generation += 1
                followed[reader] = presentation
                return .continued(presentationID: presentation.id)
            }
            if presentation.isDeferred { close(reader: reader, at: now) }
        }
        let key = ReaderTag(reader: reader, identity: identity)
        if let (presentation, until) = gone.removeValue(forKey: key), now <= until {
            return .returned(presentationID: presentation.id)
        }
        return .tap
    }

    /// The tap (or return) of a presentation is being dispatched with rules that have an `on:` block: follow it.
    /// The router runs its later events after the tap's actions.
    /// - Parameters:
    ///   - id: the presentation id (the tap's event id, or the returning presentation's).
    ///   - tag: the tag as read.
    ///   - rules: the matched rules with an `on:` block.
    ///   - start: when the card was reported.
    ///   - now: the current time.
    public mutating func follow(
        id: String, tag: ReadTag, rules: [Rule], start: ContinuousClock.Instant, now: ContinuousClock.Instant
    ) {
        guard !isStopped else { return }
        let reader = tag.tag.reader
        if let waiting = followed[reader], waiting.id != id {
            // Another tag's presentation was in its grace on this reader: a new tag was put down, so it is over now.
            close(reader: reader, at: now)
        }
        var presentation = Followed(
            id: id, reader: reader, identity: tag.identity, tag: tag, rules: rules, start: start)
        for rule in rules {
            guard let held = rule.on.held,
                let timer = setTimer(
                    at: start + held.timing, for: .held(reader: reader, id: id, start: start, rule: rule))
            else { continue }
            presentation.heldTimers.append(timer)
        }
        followed[reader] = presentation
    }

    /// What a timer that came due decided (the router logs it: end-to-end tests wait for it instead of a time).
    public enum TimerVerdict: String, Sendable {
        /// A grace ended with the tag away: the presentation closed (`removed` for the rules that have it).
        case closed
        /// A grace ended with a card still being read: the decision waits for it.
        case deferred
        /// A grace whose tag came back (or whose presentation had closed, or while pcscd is away): nothing.
        case graceOver = "grace-over"
        /// A stay reached a rule's `held` time: `held` fired.
        case held
        /// A `held` time of a stay that had ended: nothing.
        case heldOver = "held-over"

        /// Whether the timer was a grace's.
        public var isGrace: Bool { [.closed, .deferred, .graceOver].contains(self) }
    }

    /// A timer the value set is due.
    /// - Parameters:
    ///   - id: the timer's id (``Effect/setTimer(_:at:)``).
    ///   - now: the current time.
    /// - Returns: what it decided; nil for a timer cancelled meanwhile, or once stopped.
    @discardableResult
    public mutating func timerFired(_ id: UInt64, now: ContinuousClock.Instant) -> TimerVerdict? {
        guard !isStopped, let purpose = timers.removeValue(forKey: id) else { return nil }
        switch purpose {
        case .grace(let reader, let generation):
            guard let presentation = followed[reader], presentation.generation == generation,
                presentation.leftAt != nil, !isServiceAway
            else { return .graceOver }
            if unidentified[reader] != nil {
                followed[reader]?.isDeferred = true
                return .deferred
            }
            close(reader: reader, at: now)
            return .closed
        case .held(let reader, let id, let start, let rule):
            guard let presentation = followed[reader], presentation.id == id, presentation.start == start,
                presentation.leftAt == nil
            else { return .heldOver }
            effects.append(
                .fire(
                    LaterEvent(
                        context: PresentationContext(kind: .held, presentationID: id, presentedFor: now - start),
                        tag: presentation.tag, rules: [rule])))
            return .held
        }
    }

    /// The router stops: every timer is cancelled, and nothing more is decided.
    public mutating func stop() {
        isStopped = true
        effects += timers.keys.sorted().map(Effect.cancelTimer)
        timers = [:]
    }

    /// How many presentations are followed on a reader: present, or in their grace.
    var followedCount: Int { followed.count }

    /// How many timers are set and not yet fired or cancelled (for tests: timers end with their presentation).
    var timerCount: Int { timers.count }

    // MARK: Closing

    private mutating func startGrace(of presentation: Followed, now: ContinuousClock.Instant) {
        setTimer(
            at: now + presentation.grace,
            for: .grace(reader: presentation.reader, generation: presentation.generation))
    }

    /// The followed presentation on `reader` is over: its `removed` (for the rules that have it), and a return
    /// window when a rule has `returned`.
    private mutating func close(reader: String, at now: ContinuousClock.Instant) {
        guard let presentation = followed.removeValue(forKey: reader), !isStopped else { return }
        for timer in presentation.heldTimers where timers.removeValue(forKey: timer) != nil {
            effects.append(.cancelTimer(timer))
        }
        let leftAt = presentation.leftAt ?? now
        if let window = presentation.window {
            // Windows that closed are forgotten; past the limit, the one closing soonest goes too.
            gone = gone.filter { $0.value.until >= now }
            if gone.count >= Self.returnableLimit,
                let soonest = gone.min(by: { $0.value.until < $1.value.until })?.key
            {
                gone[soonest] = nil
            }
            gone[ReaderTag(reader: reader, identity: presentation.identity)] = (presentation, now + window)
        }
        let rules = presentation.rules.filter { $0.on.removed != nil }
        guard !rules.isEmpty else { return }
        effects.append(
            .fire(
                LaterEvent(
                    context: PresentationContext(
                        kind: .removed, presentationID: presentation.id, presentedFor: leftAt - presentation.start),
                    tag: presentation.tag, rules: rules)))
    }

    /// Sets a timer; returns its id, nil once stopped.
    @discardableResult
    private mutating func setTimer(at deadline: ContinuousClock.Instant, for purpose: TimerPurpose) -> UInt64? {
        guard !isStopped else { return nil }
        let id = nextTimer
        nextTimer += 1
        timers[id] = purpose
        effects.append(.setTimer(id, at: deadline))
        return id
    }
}
