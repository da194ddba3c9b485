import Foundation
public import Logging
import PeriodicWork
public import ServiceLifecycle
public import StateStore
import Synchronization
import TagRules
public import WebhookRetry
import WebhookTarget

/// Delivers the outbox's webhooks: a `Service` whose ``run()`` keeps several attempts in flight over kept-alive
/// connections (AsyncHTTPClient), records every outcome in the state database, and retries per its
/// ``RetryPolicy``.
///
/// A delivery is inserted into the state database by ``enqueue(_:)`` before any of it is sent; pending deliveries
/// found at start (left by a crash or a restart) are sent when due. ``run()`` returns on graceful shutdown after
/// the attempts in flight have finished (each within its own deadline) and been recorded, or on cancellation.
public final class OutboxWorker: Service, Sendable {
    /// Tuning of the worker.
    public struct Configuration: Sendable {
        /// The `User-Agent` sent, `tagrouter/VERSION`.
        public var userAgent: String
        /// How many attempts may be in flight at once.
        public var maxInFlight: Int
        /// How many connections per host the HTTP client keeps.
        public var connectionsPerHost: Int
        /// When to retry.
        public var retryPolicy: RetryPolicy
        /// The process environment: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` choose the proxy of webhooks whose
        /// rule does not.
        public var environment: [String: String]

        /// Creates a configuration.
        /// - Parameters:
        ///   - userAgent: the `User-Agent` value.
        ///   - maxInFlight: attempts in flight at once (default 32).
        ///   - connectionsPerHost: connections kept per host (default 16).
        ///   - retryPolicy: the backoff policy.
        ///   - environment: the process environment, for the proxy variables.
        public init(
            userAgent: String,
            maxInFlight: Int = 32,
            connectionsPerHost: Int = 16,
            retryPolicy: RetryPolicy = RetryPolicy(),
            environment: [String: String] = [:]
        ) {
            self.userAgent = userAgent
            self.maxInFlight = max(1, maxInFlight)
            self.connectionsPerHost = max(1, connectionsPerHost)
            self.retryPolicy = retryPolicy
            self.environment = environment
        }
    }

    /// The state database holding the deliveries.
    public let database: StateDatabase
    let configuration: Configuration
    let logger: Logger
    let wakeup = Wakeup()
    /// What ``enqueue(_:)`` and the loop share, under one lock: a delivery is started by one or the other, never by
    /// both.
    let shared = Mutex(Shared())
    /// The outcomes of attempts that ended, left for the loop to record.
    let ended = Mutex<[DeliveryOutcome]>([])

    struct Shared {
        /// The sender while ``run()`` runs: ``enqueue(_:)`` starts a delivery's first attempt through it.
        var sender: WebhookSender?
        /// Every delivery from the start of an attempt until its outcome is recorded.
        var inFlight: Set<Int64> = []
        var isStopping = false
        var loop = LoopState.working
    }

    /// What the delivery loop is doing: at work, or waiting for its next turn.
    package enum LoopState: Sendable, Equatable {
        /// Recording outcomes and starting due deliveries.
        case working
        /// Waiting until the given time (the next delivery due), or, when `nil`, until it is woken (by an attempt
        /// that ends, ``enqueue(_:)``, ``wake()`` or shutdown).
        case waiting(until: ContinuousClock.Instant?)
    }

    /// What the delivery loop is doing now; for a test that a delivery made due from outside waits for ``wake()``.
    package var loopState: LoopState { shared.withLock { $0.loop } }

    /// Creates a worker.
    /// - Parameters:
    ///   - database: the state database.
    ///   - configuration: the tuning.
    ///   - logger: where deliveries are logged (`http.status`, `event.id`, `rule.name`).
    public init(database: StateDatabase, configuration: Configuration, logger: Logger) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
    }

    /// Accepts a delivery: validates it, inserts it into the state database, then starts its first attempt, unless
    /// the worker is not running, is stopping or has every place taken (the loop then finds it pending).
    /// - Parameter delivery: the webhook delivery (``StateStore/Delivery/webhook(_:rule:document:)``).
    /// - Returns: the delivery's id in the state database.
    /// - Throws: ``ActionError`` (`invalidRequest`) or ``StateStore/StateStoreError``; once this returns, the
    ///   delivery is durable.
    @discardableResult
    public func enqueue(_ delivery: Delivery) throws -> Int64 {
        guard delivery.kind == .webhook else {
            throw ActionError(.invalidRequest, "\(delivery) is an MQTT publication, not a webhook")
        }
        try delivery.validate()
        // Inserted and marked in flight under the lock the loop takes to read due rows: the loop never finds it.
        let (inserted, sender) = try shared.withLock { shared -> (Delivery, WebhookSender?) in
            let inserted = try database.insert(delivery)
            guard let sender = shared.sender, !shared.isStopping, shared.inFlight.count < configuration.maxInFlight
            else { return (inserted, nil) }
            shared.inFlight.insert(inserted.id)
            return (inserted, sender)
        }
        // Started here rather than by the loop: a tap's webhook waits for no other thread but the connection's.
        if let sender { start(inserted, through: sender) }
        return inserted.id
    }

    /// Makes the worker look for due deliveries at once: for a delivery made due from outside it (the console's
    /// "retry now", docs/console.md), which would otherwise wait for the worker's next turn.
    public func wake() {
        wakeup.signal()
    }

    /// Sends deliveries until graceful shutdown or cancellation, then closes the HTTP connections.
    public func run() async throws {
        let sender = WebhookSender(
            userAgent: configuration.userAgent, connectionsPerHost: configuration.connectionsPerHost,
            environment: configuration.environment)
        shared.withLock { $0.sender = sender }
        await withGracefulShutdownHandler {
            await deliverLoop(sender: sender)
        } onGracefulShutdown: {
            self.shared.withLock { $0.isStopping = true }
            self.wakeup.signal()
        }
        shared.withLock { $0.sender = nil }
        // Closing the client cancels the attempts still in flight after a cancellation: their deliveries stay
        // pending in the database and are sent again after a restart.
        await sender.shutdown()
    }

    /// Runs one attempt in a task of its own, from its start to its first wait on the calling thread; when it ends,
    /// its outcome is left in `ended` and the loop's wakeup rung.
    private func start(_ delivery: Delivery, through sender: WebhookSender) {
        Task.immediate {
            let result = await sender.attempt(delivery)
            var generator = SystemRandomNumberGenerator()
            let outcome = self.outcome(for: delivery, after: result, using: &generator)
            self.ended.withLock { $0.append(outcome) }
            self.wakeup.signal()
        }
    }

    /// The delivery loop. Each turn records every outcome left since the last in one transaction, then starts what
    /// is due. A delivery stays in `inFlight` from its start until its outcome is recorded, so none is started
    /// twice. State database errors (a locked or full disk) are logged and retried every second: they never end
    /// the router, and outcomes not yet recorded wait in memory.
    private func deliverLoop(sender: WebhookSender) async {
        // Due rows read from the database ahead of room to start them, none in flight: one query per
        // `maxInFlight` deliveries of a backlog instead of one per attempt that ends.
        var readAhead: [Delivery] = []
        var unrecorded: [DeliveryOutcome] = []
        var databaseFailedAt: ContinuousClock.Instant?
        while true {
            unrecorded += ended.withLock { ended in
                defer { ended.removeAll(keepingCapacity: true) }
                return ended
            }
            // Cancelled: the attempts in flight are cancelled when ``run()`` closes the client; whatever is not
            // recorded is pending in the database and is sent again after a restart.
            if Task.isCancelled { return }
            let stopping = shared.withLock { $0.isStopping }
            let databaseResting = databaseFailedAt.map { ContinuousClock.now - $0 < .seconds(1) } ?? false
            if !unrecorded.isEmpty && !databaseResting {
                do {
                    try database.record(unrecorded)
                    let ids = unrecorded.map(\.id)
                    shared.withLock { $0.inFlight.subtract(ids) }
                    unrecorded.removeAll()
                    databaseFailedAt = nil
                } catch {
                    databaseFailedAt = databaseFailed(error)
                }
            }
            if !stopping && !databaseResting {
                do {
                    for delivery in try takeDue(readAhead: &readAhead) {
                        start(delivery, through: sender)
                    }
                    if unrecorded.isEmpty { databaseFailedAt = nil }
                } catch {
                    databaseFailedAt = databaseFailed(error)
                }
            }
            let inFlight = shared.withLock { $0.inFlight }
            // A delivery stays in flight until its outcome is recorded: none left means none running either.
            if stopping && inFlight.isEmpty { return }
            // With every place taken, an attempt's end wakes the loop: a due delivery must not.
            let isFull = inFlight.count >= configuration.maxInFlight
            let delay: Duration? =
                databaseFailedAt != nil
                ? .seconds(1) : stopping || isFull ? nil : nextWake(excluding: inFlight)
            shared.withLock { $0.loop = .waiting(until: delay.map { ContinuousClock.now + $0 }) }
            await wakeup.wait(for: delay)
            shared.withLock { $0.loop = .working }
        }
    }

    /// The deliveries to start now, marked in flight, as many as there is room for: those read ahead, and when none
    /// are left, those due in the state database, none in flight, up to `maxInFlight` of them, the rest kept in
    /// `readAhead`. Deliveries due meanwhile are found on the loop's next turn: its wait is then computed as zero.
    private func takeDue(readAhead: inout [Delivery]) throws -> [Delivery] {
        try shared.withLock { shared in
            let room = configuration.maxInFlight - shared.inFlight.count
            guard room > 0 else { return [] }
            if readAhead.isEmpty {
                readAhead = try database.due(
                    .webhook, now: Timestamp.milliseconds(Date()), limit: configuration.maxInFlight,
                    excluding: shared.inFlight)
            }
            let starting = Array(readAhead.prefix(room))
            readAhead.removeFirst(starting.count)
            shared.inFlight.formUnion(starting.map(\.id))
            return starting
        }
    }

    /// How long the loop may sleep: until the next delivery not in flight is due.
    private func nextWake(excluding inFlight: Set<Int64>) -> Duration? {
        do {
            guard let next = try database.nextAttemptTime(excluding: inFlight) else { return nil }
            return .milliseconds(max(0, next - Timestamp.milliseconds(Date())))
        } catch {
            _ = databaseFailed(error)
            return .seconds(1)
        }
    }

    private func databaseFailed(_ error: any Error) -> ContinuousClock.Instant {
        logger.error("webhook outbox: state database error, retrying in 1 s", metadata: ["error": "\(error)"])
        return ContinuousClock.now
    }

    /// The row change after one attempt, and its log line.
    func outcome(
        for delivery: Delivery,
        after result: AttemptResult,
        using generator: inout some RandomNumberGenerator
    ) -> DeliveryOutcome {
        let now = Timestamp.milliseconds(Date())
        let attempts = delivery.attempts + 1
        // The attempt's metadata goes with each line rather than onto the logger, and is built only for a line that
        // is logged: a log handler may redo work for every metadata key set on a logger.
        func metadata(_ line: Logger.Metadata) -> Logger.Metadata {
            var metadata = line
            metadata["event.id"] = "\(delivery.eventID)"
            metadata["rule.name"] = "\(delivery.rule)"
            metadata["action.kind"] = "webhook"
            metadata["webhook.attempts"] = "\(attempts)"
            if let status = result.status { metadata["http.status"] = "\(status)" }
            return metadata
        }
        var outcome = DeliveryOutcome(
            id: delivery.id, state: .delivered, status: result.status, error: result.error, nextAttemptAt: now,
            finishedAt: now)
        switch result.verdict {
        case .delivered:
            logger.debug(
                "webhook delivered", metadata: metadata(["webhook.url": "\(URLRedaction.redacted(delivery.target))"]))
        case .failed:
            outcome.state = .failed
            logger.error("webhook failed", metadata: metadata(["error": "\(result.error ?? "")"]))
        case .retry where now >= delivery.deadline:
            outcome.state = .failed
            outcome.error = (result.error ?? "failed") + "; gave up after \(attempts) attempts"
            logger.error("webhook failed", metadata: metadata(["error": "\(outcome.error ?? "")"]))
        case .retry:
            let delay = configuration.retryPolicy.delayMilliseconds(
                afterAttempts: attempts, retryAfter: result.retryAfter, using: &generator)
            outcome.state = .pending
            outcome.finishedAt = nil
            outcome.nextAttemptAt = min(now + delay, delivery.deadline)
            logger.warning(
                "webhook attempt failed, will retry",
                metadata: metadata([
                    "error": "\(result.error ?? "")", "webhook.retry_in_ms": "\(outcome.nextAttemptAt - now)",
                ]))
        }
        return outcome
    }
}
