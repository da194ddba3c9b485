public import Console
import CoreMetrics
import Foundation
public import Logging
import NFCTag
public import PCSC
import ReaderFeedback
public import ServiceLifecycle
import Synchronization
import TagActions
import TagRules
import TagsFile

/// The router: turns reader events into taps and each tap into a read, a decision and a dispatch.
///
/// A tap's path: ``handle(_:)`` consults ``Presentations`` (the one owner of reader, presentation and cooldown
/// state) and starts a tap; ``TapPipeline`` reads, decodes and matches and returns what it found; the router
/// asks ``Presentations`` whether to dispatch; ``Dispatcher`` carries out the actions; ``TapReporter`` logs,
/// counts and records the ``TapOutcome``.
///
/// A `Service`: it runs until graceful shutdown, then stops watching and lets taps in progress finish. The
/// `ServiceGroup`'s graceful-shutdown budget bounds that wait: past it the group cancels the router, which
/// cancels the taps (their commands are killed; webhooks already queued stay in the outbox).
///
/// The seams are protocols and values so the whole router runs in unit tests: `Events` is any sequence of
/// reader events (``ReaderWatcher`` in production), ``CardReader`` reads tags, ``ActionPerforming`` carries
/// out actions and ``TapHistory`` records taps.
public final class Router<Events: AsyncSequence & Sendable>: Service, Sendable
where Events.Element == ReaderEvent, Events.Failure == Never {
    /// How the router behaves.
    public struct Configuration: Sendable {
        /// Only readers for which this returns `true` are used (`--reader`).
        public var acceptsReader: @Sendable (String) -> Bool
        /// The clock cooldown is measured with.
        public var now: @Sendable () -> ContinuousClock.Instant
        /// Called with every accepted reader present and whether a tag is on it, each time that changes (a
        /// reader appears or goes, a tag is put on one or leaves it): MQTT's Home Assistant discovery and its
        /// presence sensor. ``Presentations`` owns this state; whoever follows it keeps no map of its own. Called
        /// under the router's reader-state lock: it hands the report on and returns, never calling the router.
        public var readersChanged: @Sendable (_ readers: [String: Bool]) -> Void = { _ in }
        /// Where the events are handled: `tagrouter run` passes the thread its ``PCSC/ReaderWatcher`` waits on, so
        /// that an event reaches the router with no thread hop (taps run elsewhere: ``CardReader/executor(for:)``).
        /// `nil`, the default: Swift's global executor.
        public var eventExecutor: (any TaskExecutor)?
        /// Ends the event sequence on graceful shutdown (``PCSC/ReaderWatcher/stop()``), so that the router stops
        /// watching while the taps in progress finish. The default does nothing: the events then end only when
        /// the sequence does, or when the router is cancelled.
        public var stopEvents: @Sendable () -> Void = {}
        /// Called after every event the router handled, heartbeats included (at least every few seconds while the
        /// watcher and this loop are alive): `tagrouter run` feeds the service manager's watchdog from here
        /// (``ServiceNotifier/alive()``), so a loop that stops handling events stops feeding it.
        public var eventHandled: @Sendable () -> Void = {}
        /// Called at each ``PCSC/ReaderEvent/heartbeat``; the first one means the readers present are listed and
        /// watched (``ServiceNotifier/ready(status:)``).
        public var heartbeat: @Sendable () -> Void = {}
        /// Called when what the status document shows of the router changes: a reader added or removed, a reader
        /// locked out (docs/fleet.md, "The status document").
        public var statusChanged: @Sendable () -> Void = {}
        /// Where decisions on door readers go (docs/operations.md, "The decision stream"); nil: nowhere.
        public var decisions: DecisionSink?
        /// Where every tap goes for the web console's Live page (docs/console.md), without waiting; nil: nowhere.
        public var liveTaps: (any LiveTapSink)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - acceptsReader: the reader filter; every reader by default.
        ///   - now: the clock; the continuous clock by default (tests pass their own).
        public init(
            acceptsReader: @escaping @Sendable (String) -> Bool = { _ in true },
            now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
        ) {
            self.acceptsReader = acceptsReader
            self.now = now
        }
    }

    let configuration: Configuration
    let events: Events
    let cardReader: any CardReader
    let pipeline: TapPipeline
    let dispatcher: Dispatcher
    let reporter: TapReporter
    let metrics: RouterMetrics
    let logger: Logger
    /// The readers, presentations, cooldown and followed presentations: a value, changed under this lock only
    /// through ``updatePresentations(_:)``, which carries out what it asks for.
    let presentations = Mutex(Presentations())
    /// The timers and later events ``Presentations`` asks for.
    let runs = PresentationRuns()
    /// The readers locked out by a rule's `lockout:`, and the refusals counted towards it.
    let lockouts = Mutex(Lockouts())
    /// The claim `tagrouter learn` puts in the rules folder on the readers it enrolls on (``LearnClaim``).
    let learnClaim: LearnClaimWatch?
    /// The SUN counters (the state database); nil: nothing is recorded and no replay is found (a dry run).
    let sunCounters: (any SUNCounterStore)?
    /// Shows each tap's outcome on its reader (docs/tags.md, "Reader feedback").
    let signaller: ReaderSignaller

    /// Creates the router.
    /// - Parameters:
    ///   - configuration: the reader filter and the clock.
    ///   - events: the reader events, such as a ``ReaderWatcher``.
    ///   - cardReader: reads the tag on a reader.
    ///   - rules: the rules in force.
    ///   - dispatch: carry actions out through an ``ActionPerforming``, or only log them (dry run).
    ///   - history: where taps are recorded for `tagrouter history`; `nil` records nothing.
    ///   - sunCounters: where verified SUN messages' counters are spent (the state database); `nil` spends none.
    ///   - metrics: the router metrics.
    ///   - logger: where the router logs.
    ///   - confirmer: asks the desktop before an untrusted tag's `open`; nil: such an `open` does not happen.
    public init(
        configuration: Configuration, events: Events, cardReader: any CardReader, rules: RuleStore,
        dispatch: Dispatcher.Mode, history: (any TapHistory)?, sunCounters: (any SUNCounterStore)? = nil,
        metrics: RouterMetrics, logger: Logger, confirmer: (any OpenConfirming)? = nil
    ) {
        self.configuration = configuration
        self.events = events
        self.cardReader = cardReader
        self.pipeline = TapPipeline(cardReader: cardReader, rules: rules)
        self.dispatcher = Dispatcher(mode: dispatch, logger: logger, confirmer: confirmer)
        self.reporter = TapReporter(
            metrics: metrics, history: history, logger: logger, decisions: configuration.decisions,
            live: configuration.liveTaps)
        self.metrics = metrics
        self.logger = logger
        self.learnClaim = LearnClaim.rulesFolder(of: rules.sources).map(LearnClaimWatch.init(folder:))
        self.sunCounters = sunCounters
        self.signaller = ReaderSignaller(logger: logger)
    }

    /// Watches and dispatches until graceful shutdown or cancellation.
    ///
    /// The events are handled where the watcher waits (``Configuration/eventExecutor``); each tap starts at once
    /// and runs on its reader's thread (``CardReader/executor(for:)``), where it reads its tag, decides and
    /// dispatches: one thread hop from pcscd's event to the first command, and taps on other readers go on at
    /// the same time. A webhook is inserted into the state database on the reader's thread and sent by the outbox
    /// worker (docs/development.md, "The path of one tap"). What may wait leaves that thread: commands run on
    /// Swift's global executor (`CommandRunner`), webhook attempts in the outbox worker's tasks. The events
    /// are iterated directly: ServiceLifecycle's `cancelOnGracefulShutdown()` would merge them with the shutdown
    /// signal through child tasks, two more hops per event; ``Configuration/stopEvents`` ends them instead.
    public func run() async {
        await withTaskExecutorPreference(configuration.eventExecutor) {
            await withDiscardingTaskGroup { group in
                await withGracefulShutdownHandler {
                    for await event in events {
                        if case .serviceLost = event {
                            await cardReader.reset()
                        }
                        if case .readerAdded(let name) = event, configuration.acceptsReader(name),
                            let settings = pipeline.rules.ruleSet.readerSettings(for: name), settings.quiet
                        {
                            group.addTask(executorPreference: cardReader.executor(for: name)) {
                                await self.signaller.applyQuietMode(reader: name, settings: settings) {
                                    try await self.cardReader.openDirect(reader: name)
                                }
                            }
                        }
                        if let tap = handle(event) {
                            // Immediate: the tap runs on this thread up to its first real suspension.
                            group.addImmediateTask(executorPreference: cardReader.executor(for: tap.reader)) {
                                self.reporter.report(await self.process(tap))
                            }
                        }
                        configuration.eventHandled()
                    }
                } onGracefulShutdown: { [configuration] in
                    configuration.stopEvents()
                }
                logger.info("router.stopping")
            }
            // Taps are over; later events already started finish, and nothing more is decided.
            updatePresentations { $0.stop() }
            await runs.stop()
        }
        await cardReader.reset()
    }

    /// Updates the reader and presentation state for one event; returns a tap to read when it starts one.
    func handle(_ event: ReaderEvent) -> Tap? {
        switch event {
        case .readerAdded(let name):
            guard configuration.acceptsReader(name) else {
                logger.debug("reader.skipped", metadata: ["reader.name": "\(name)"])
                return nil
            }
            let count = updatePresentations { $0.readerAdded(reader: name) }
            metrics.readersPresent.record(count)
            logger.info("reader.added", metadata: ["reader.name": "\(name)"])
            configuration.statusChanged()
        case .readerRemoved(let name):
            cardReader.readerRemoved(name)
            signaller.readerRemoved(name)
            guard configuration.acceptsReader(name) else { return nil }
            let now = configuration.now()
            let count = updatePresentations { $0.readerRemoved(reader: name, now: now) }
            metrics.readersPresent.record(count)
            logger.info("reader.removed", metadata: ["reader.name": "\(name)"])
            configuration.statusChanged()
            if count == 0 { logger.info("waiting for a reader…") }
        case .cardPresented(let reader, let atr, let eventCount):
            guard configuration.acceptsReader(reader) else { return nil }
            let received = ContinuousClock.now
            let action = updatePresentations { $0.cardPresented(reader: reader, eventCount: eventCount) }
            guard case .read(let serial) = action else { return nil }
            return Tap(reader: reader, atr: atr, serial: serial, received: received)
        case .cardRemoved(let reader):
            let now = configuration.now()
            updatePresentations { $0.cardRemoved(reader: reader, now: now) }
        case .serviceLost(let error):
            updatePresentations { $0.serviceLost() }
            logger.warning(
                "pcscd is not reachable; retrying until it is back", metadata: ["error": "\(error)"])
        case .serviceBack:
            updatePresentations { $0.serviceBack() }
            logger.info("pcscd is back")
        case .heartbeat:
            let now = configuration.now()
            updatePresentations { $0.heartbeat(now: now) }
            configuration.heartbeat()
        }
        return nil
    }

    /// Reads one tap, decides and dispatches: the tap's whole path after the reader event. The outcome is shown on
    /// the reader (``ReaderSignaller``) as soon as it is decided: for a dispatch, once its first action has started;
    /// then the tap's card connection is released.
    /// - Parameter tap: the presentation.
    /// - Returns: how it ended.
    func process(_ tap: Tap) async -> TapOutcome {
        let signal = TapSignal()
        let outcome = await readDecideDispatch(tap, signal: signal)
        if !signal.isShown {
            if let feedback = Self.feedbackOutcome(of: outcome) {
                await show(feedback, tap: tap, rule: nil, signal: signal)
            }
            cardReader.endTap(reader: tap.reader, connection: signal.connection)
        }
        return outcome
    }

    /// The outcome a reader shows for a tap that ended without a dispatch; nil: none (cooldown, superseded, held
    /// by `learn`, back within a presentation's grace).
    static func feedbackOutcome(of outcome: TapOutcome) -> FeedbackOutcome? {
        switch outcome {
        case .readFailed, .invalidNDEF: .failed
        case .ignored: .ignored
        case .dispatched(_, let dispatch): dispatch.isLaterEvent ? nil : .accepted
        case .denied: .denied
        case .suppressed, .superseded, .continued, .heldByLearn: nil
        }
    }

    /// Shows a tap's outcome on its reader, over the tap's connection, if the reader's `readers:` entry asks.
    func show(_ outcome: FeedbackOutcome, tap: Tap, rule: Rule?, signal: TapSignal) async {
        signal.isShown = true
        guard let settings = pipeline.rules.ruleSet.readerSettings(for: tap.reader) else { return }
        await signaller.show(outcome, reader: tap.reader, settings: settings, rule: rule, channel: signal.connection)
    }

    /// The tap's path up to its outcome; a dispatch shows its outcome on the reader once its first action started.
    private func readDecideDispatch(_ tap: Tap, signal: TapSignal) async -> TapOutcome {
        var tag: ReadTag
        // Whether `learn` held the reader when the tag arrived, looked at before the read: `learn` reads the same
        // tag meanwhile, may enroll it and end (its claim gone) before this read is done, and ignores a tag that
        // was already there when it claimed the reader.
        let heldByLearn = isHeldByLearn(tap.reader)
        let read = await pipeline.read(tap)
        // The read's own connection, still open: the signal goes over it, and the tap ends it (not a later tap's).
        signal.connection = cardReader.tapConnection(reader: tap.reader)
        switch read {
        case .failed(let failure):
            // `learn` reads the same tag meanwhile, and two readers of one card can make one read fail: a reader
            // it holds is left to it, failed read or not.
            if heldByLearn { return .heldByLearn(TagSummary(reader: tap.reader)) }
            return .readFailed(reader: tap.reader, failure)
        case .invalidNDEF(let summary, let failure): return .invalidNDEF(summary, failure)
        case .read(let read): tag = read
        }
        // Before anything decides what to do with the tag: a verified message is spent once seen, whatever comes of
        // it (admitted, refused, held by learn), so a copy of it is worth nothing later.
        let sunCounter = spendSUNCounter(of: tag)
        let lock = lock(of: tap.reader)
        let facts = TapFacts(sunCounter: sunCounter, lock: lock, isHeldByLearn: heldByLearn, now: configuration.now())
        let returning: String?
        switch updatePresentations({ $0.decide(tag, serial: tap.serial, facts: facts) }) {
        case .ended(let outcome): return outcome
        case .dispatch(let decided, let returns): (tag, returning) = (decided, returns)
        }
        let time = Date()
        let eventID = EventID.make(at: time)
        let latency = ContinuousClock.now - tap.received
        let presentationID = returning ?? eventID
        let followed = tag.matches.map(\.rule).filter { !$0.on.isEmpty }
        var tapDone: Gate?
        if !followed.isEmpty {
            let gate = Gate()
            tapDone = gate
            // The chain's first link: the presentation's later events wait for the tap's actions.
            runs.chain(id: presentationID) { await gate.wait() }
            let now = configuration.now()
            updatePresentations {
                $0.follow(id: presentationID, tag: tag, rules: followed, start: tap.received, now: now)
            }
        }
        let plan: [(Rule, PresentationContext?)] = tag.matches.map { match in
            guard returning != nil || !match.rule.on.isEmpty else { return (match.rule, nil) }
            let kind: PresentationEventKind = returning != nil && match.rule.on.returned != nil ? .returned : .tap
            return (match.rule, PresentationContext(kind: kind, presentationID: presentationID, presentedFor: latency))
        }
        let feedback = feedbackOf(tag)
        let decided = tag
        let rulesDispatched = await withTaskGroup(of: [RuleDispatch].self) { group in
            // Immediate: the dispatch runs here up to its first suspension (its first action started), then the
            // reader shows the outcome on this thread while the actions go on.
            group.addImmediateTask { [dispatcher] in
                var rules = await dispatcher.dispatch(plan, of: decided, eventID: eventID, time: time)
                if let refusal = decided.refusal {
                    rules.append(await dispatcher.dispatch(refusal, of: decided, eventID: eventID, time: time))
                }
                return rules
            }
            await show(feedback.outcome, tap: tap, rule: feedback.rule, signal: signal)
            // Released at once, not when the actions end: a command may run for minutes.
            cardReader.endTap(reader: tap.reader, connection: signal.connection)
            return await group.next() ?? []
        }
        tapDone?.open()
        var dispatch = Dispatch(
            eventID: eventID, time: time, rules: rulesDispatched, latency: latency, readTime: tag.readTime)
        if returning != nil || !followed.isEmpty {
            // Followed: the tap's history row and log line name the presentation its later events share.
            dispatch.event = returning == nil ? .tap : .returned
            dispatch.presentationID = presentationID
        }
        if let refusal = tag.refusal {
            countRefusal(refusal, reader: tap.reader)
            return .denied(tag.tag, rule: refusal.rule.name, reason: refusal.reason, dispatch)
        }
        return .dispatched(tag.tag, dispatch)
    }

    /// The outcome a dispatched tap shows, and the rule whose `feedback:` may replace its reader's: the refusing
    /// rule, else the deciding rule (the last matched), else the first matched rule that has one. `asking` when a
    /// matched rule's `open` waits for a desktop confirmation.
    func feedbackOf(_ tag: ReadTag) -> (outcome: FeedbackOutcome, rule: Rule?) {
        if let refusal = tag.refusal { return (.denied, refusal.rule) }
        let rules = tag.matches.map(\.rule)
        let rule = rules.last.flatMap { $0.feedback == nil ? nil : $0 } ?? rules.first { $0.feedback != nil }
        let asks =
            dispatcher.confirmer != nil
            && rules.contains { rule in
                rule.actions.contains { if case .open = $0 { true } else { false } }
                    && rule.asksBeforeOpening(tag.event)
            }
        return (asks ? .asking : .accepted, rule)
    }

    /// Whether `tagrouter learn` holds the reader now (``LearnClaim``).
    func isHeldByLearn(_ reader: String) -> Bool {
        learnClaim?.current()?.readers.contains(reader) == true
    }

    /// Records the counter of the tap's verified SUN message, if it has one (docs/doors.md, "SUN: tags that prove
    /// themselves"): a counter not above the highest recorded for its UID is a replay (a copied URL). A store that
    /// cannot be used counts as a replay: a door fails closed.
    func spendSUNCounter(of tag: ReadTag) -> TapFacts.SUNCounter {
        guard let sun = tag.event.sun, let counters = sunCounters else { return .none }
        do {
            return try counters.acceptSUNCounter(keySetID: sun.keySetID, uid: sun.uid, counter: sun.counter)
                ? .fresh : .replayed
        } catch {
            logger.error("sun.counter_store_failed: the tag is refused", metadata: ["error": "\(error)"])
            return .replayed
        }
    }

    /// The reader's lockout now (docs/doors.md, "Lockout"), with the rule in force that set it; a lock whose rule a
    /// reload removed, or left without `lockout:`, is lifted.
    func lock(of reader: String) -> (rule: Rule, index: Int)? {
        guard let lock = lockouts.withLock({ $0.lock(of: reader, now: configuration.now()) }) else { return nil }
        let rules = pipeline.rules.ruleSet.rules
        guard let index = rules.firstIndex(where: { $0.name == lock.rule && $0.lockout != nil }) else {
            let kept = rules.compactMap { rule in rule.lockout.map { (rule.name, $0) } }
            lockouts.withLock { $0.keep(Dictionary(kept, uniquingKeysWith: { first, _ in first })) }
            return nil
        }
        return (rules[index], index)
    }

    /// Counts a refusal towards its rule's `lockout:` on the reader, and locks the reader when it is one too many
    /// (logged as `reader.locked_out`, counted in `tagrouter_lockouts_total`).
    func countRefusal(_ refusal: Refusal, reader: String) {
        guard refusal.reason != .lockedOut, let lockout = refusal.rule.lockout else { return }
        let now = configuration.now()
        guard
            lockouts.withLock({ $0.refused(reader: reader, rule: refusal.rule.name, lockout: lockout, now: now) })
                != nil
        else { return }
        metrics.lockedOut(rule: refusal.rule.name)
        configuration.statusChanged()
        logger.warning(
            "reader.locked_out: the reader refuses every tag for the lockout's time",
            metadata: [
                "reader.name": "\(reader)", "rule.name": "\(refusal.rule.name)",
                "lockout.after": "\(lockout.after)", "lockout.within": "\(DurationText.format(lockout.within))",
                "lockout.for": "\(DurationText.format(lockout.duration))",
            ])
    }

    /// Carries out a later event of a followed presentation and reports it (docs/rules.md, "Tags that stay on
    /// the reader").
    /// - Parameter event: the event.
    func carryOut(_ event: Presentations.LaterEvent) async {
        // The rules as they are now: a reload since the tap may have changed a rule's actions, or removed the rule
        // or its event, and a later event never runs what the rules no longer say.
        let current = pipeline.rules.ruleSet.rules
        let rules = event.rules.compactMap { followed in
            current.first { $0.name == followed.name && $0.on[event.context.kind] != nil }
        }
        guard !rules.isEmpty else {
            logger.debug(
                "presentation.event_skipped: its rules were removed or changed by a reload",
                metadata: [
                    "event": "\(event.context.kind.rawValue)", "presentation.id": "\(event.context.presentationID)",
                ])
            return
        }
        let time = Date()
        let eventID = EventID.make(at: time)
        let dispatched = await dispatcher.dispatch(
            rules.map { ($0, event.context) }, of: event.tag, eventID: eventID, time: time)
        var dispatch = Dispatch(eventID: eventID, time: time, rules: dispatched, latency: .zero, readTime: .zero)
        dispatch.event = event.context.kind
        dispatch.presentationID = event.context.presentationID
        dispatch.presentedFor = event.context.presentedFor
        reporter.report(.dispatched(event.tag.tag, dispatch))
    }
}

/// A tap's card connection, and whether its outcome has been shown on the reader.
final class TapSignal: Sendable {
    private let state = Mutex<(shown: Bool, connection: (any CardChannel)?)>((false, nil))

    /// Whether it has been shown (and the connection ended).
    var isShown: Bool {
        get { state.withLock { $0.shown } }
        set { state.withLock { $0.shown = newValue } }
    }

    /// The read's connection, if the card reader keeps one.
    var connection: (any CardChannel)? {
        get { state.withLock { $0.connection } }
        set { state.withLock { $0.connection = newValue } }
    }
}

/// One presentation to read: the reader, the card's ATR, its presentation serial and when it was reported.
public struct Tap: Sendable {
    /// The reader name.
    public var reader: String
    /// The ATR.
    public var atr: [UInt8]
    /// The presentation serial from ``Presentations``.
    public var serial: UInt64
    /// When the watcher reported the card.
    public var received: ContinuousClock.Instant
}
