import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Prometheus
import Synchronization
import TagActions
import TagRules
import TestSupport

@testable import TagRouterCore

/// The whole router with no pcscd, no tags and no processes, the way NIOEmbedded runs a channel: reader events
/// are sent by the test, reads answer from a script, actions are recorded, the history is an array, log lines
/// and metrics are kept for assertions, and the cooldown clock moves only when the test says so.
///
/// A test either drives the router's steps itself (``present(_:uri:uid:eventCount:)`` then ``process(_:)``,
/// deterministic), or runs ``router`` as a service and feeds ``send(_:)``.
final class EmbeddedRouter: Sendable {
    let router: Router<AsyncStream<ReaderEvent>>
    let events: AsyncStream<ReaderEvent>.Continuation
    let cardReader = ScriptedCardReader()
    let performer: RecordingPerformer
    let history = MemoryHistory()
    let logs = LogRecorder.Lines()
    let registry = PrometheusCollectorRegistry()
    let rules: RuleStore
    let rulesFile: String
    /// How often the router said the status document changed (readers, lockouts).
    let statusChanges = Tally()
    private let clock = ManualClock()

    /// Creates the router with `rules` (YAML) in a temporary file, so that reloads read it again.
    /// - Parameters:
    ///   - rules: the rules file's text.
    ///   - dryRun: log actions instead of performing them.
    ///   - performer: the recording performer (one that hangs, for shutdown tests).
    ///   - acceptsReader: the reader filter.
    ///   - environment: what `${NAME}` in the rules reads (a `sun` rule's keys).
    ///   - sunCounters: where verified SUN messages' counters are spent; nil spends none.
    ///   - decisions: where door decisions go.
    init(
        rules text: String, dryRun: Bool = false, performer: RecordingPerformer = RecordingPerformer(),
        acceptsReader: @escaping @Sendable (String) -> Bool = { _ in true }, environment: [String: String] = [:],
        sunCounters: (any SUNCounterStore)? = nil, decisions: DecisionSink? = nil
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "embedded-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        rulesFile = directory.appendingPathComponent("rules.yaml").path
        try text.write(toFile: rulesFile, atomically: true, encoding: .utf8)
        let logger = Logger(label: "embedded") { [logs] _ in LogRecorder(lines: logs) }
        // The folder is the source, as `make run` gives it: the learn claim lives there too.
        let sources = [directory.path]
        let loaded = RuleSet.load(sources: sources, environment: environment)
        rules = RuleStore(sources: sources, environment: environment, initial: try loaded.get(), logger: logger)
        self.performer = performer
        let (stream, continuation) = AsyncStream.makeStream(of: ReaderEvent.self)
        events = continuation
        let clock = self.clock
        var configuration = Router<AsyncStream<ReaderEvent>>.Configuration(
            acceptsReader: acceptsReader, now: { clock.now })
        configuration.stopEvents = { continuation.finish() }
        configuration.decisions = decisions
        configuration.statusChanged = { [statusChanges] in statusChanges.add() }
        router = Router(
            configuration: configuration, events: stream,
            cardReader: cardReader, rules: rules, dispatch: dryRun ? .dryRun : .perform(performer), history: history,
            sunCounters: sunCounters, metrics: RouterMetrics(factory: PrometheusMetricsFactory(registry: registry)),
            logger: logger)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: (rulesFile as NSString).deletingLastPathComponent)
    }

    /// Moves the cooldown clock forward.
    func advance(by duration: Duration) {
        clock.advance(by: duration)
    }

    /// Sends a reader event to the running router.
    func send(_ event: ReaderEvent) {
        events.yield(event)
    }

    /// Scripts the next read on `reader` to find a Type 2 tag with `uri` (and `uid`), then reports the card
    /// presented, as the watcher would.
    /// - Returns: the tap the router starts, or `nil` when it starts none.
    func present(
        _ reader: String, uri: String, uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80],
        eventCount: UInt16
    ) throws -> Tap? {
        let message = try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
        cardReader.script(.tag(TagReading(uid: uid, technology: .type2, content: .message(message))), on: reader)
        return router.handle(.cardPresented(reader: reader, atr: [0x3B, 0x8F], eventCount: eventCount))
    }

    /// Reads, decides, dispatches and reports one tap, as the running router does.
    func process(_ tap: Tap) async -> TapOutcome {
        let outcome = await router.process(tap)
        router.reporter.report(outcome)
        return outcome
    }

    /// The Prometheus exposition of the router's metrics.
    var exposition: String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Waits until `condition` holds (or fails the wait after 30 s), for tests that run the router as a service.
    /// The limit only ends a wait that would never end: the unit tier runs hundreds of tests at once on two cores,
    /// and a router task can wait seconds for a thread there (10 s was once too short at a load of 10).
    func wait(until condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

/// A wait whose condition never came true.
struct WaitTimedOut: Error, CustomStringConvertible {
    var description: String { "the condition did not come true within 10 s" }
}

/// A clock that moves only when told to.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    /// The current instant.
    var now: ContinuousClock.Instant { instant.withLock { $0 } }

    /// Moves the clock forward.
    func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}

/// A count that closures may add to from any thread.
final class Tally: Sendable {
    private let count = Mutex(0)

    /// Adds one.
    func add() { count.withLock { $0 += 1 } }

    /// The count now.
    var value: Int { count.withLock { $0 } }
}
