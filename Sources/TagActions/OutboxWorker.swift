import Foundation
public import Logging
import PeriodicWork
public import ServiceLifecycle
public import StateStore
import Synchronization
import TagRules
public import WebhookRetry

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
    /// Deliveries ``enqueue(_:)`` inserted and the loop has not taken yet: the loop starts them without reading
    /// them back. Any it never takes (the worker stopped) are pending in the database.
    let inserted = Mutex<[Delivery]>([])
    let isStopping = Atomic<Bool>(false)
    /// The outcomes of attempts that ended, left for the loop to record.
    let ended = Mutex<[DeliveryOutcome]>([])

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

    /// Accepts a delivery: validates it, inserts it into the state database, and has the worker send it.
    /// - Parameter request: the rendered request.
    /// - Returns: the delivery's id in the state database.
    /// - Throws: ``ActionError`` (`invalidRequest`) or ``StateStore/StateStoreError``; once this returns, the
    ///   delivery is durable.
    @discardableResult
    public func enqueue(_ request: WebhookRequest) throws -> Int64 {
        let delivery = try request.delivery(now: Date())
        // Inserted and handed over under the lock the loop takes while it reads due rows: a delivery is found by
        // one or the other, never by both.
        let id = try inserted.withLock { fresh in
            let inserted = try database.insert(delivery)
            if fresh.count < configuration.maxInFlight && !isStopping.load(ordering: .relaxed) {
                fresh.append(inserted)
            }
            return inserted.id
        }
        wakeup.signal()
        return id
    }

    /// Sends deliveries until graceful shutdown or cancellation, then closes the HTTP connections.
    public func run() async throws {
        let sender = WebhookSender(
            userAgent: configuration.userAgent, connectionsPerHost: configuration.connectionsPerHost,
            environment: configuration.environment)
        await withGracefulShutdownHandler {
            await deliverLoop(sender: sender)
        } onGracefulShutdown: {
            self.isStopping.store(true, ordering: .relaxed)
            self.wakeup.signal()
        }
        await sender.shutdown()
    }

    /// The delivery loop. Every attempt runs in its task group and, when it ends, leaves its outcome in `ended` and
    /// rings the loop's wakeup; each turn of the loop records every outcome left since the last in one transaction,
    /// then starts what is due. `inFlight` holds each delivery from its start until its outcome is recorded, so none
    /// is started twice. State database errors (a locked or full disk) are logged and retried every second: they
    /// never end the router, and outcomes not yet recorded wait in memory.
    private func deliverLoop(sender: WebhookSender) async {
        var inFlight: Set<Int64> = []
        // Due rows read from the database ahead of room to start them, none in flight: one query per
        // `maxInFlight` deliveries of a backlog instead of one per attempt that ends.
        var readAhead: [Delivery] = []
        var unrecorded: [DeliveryOutcome] = []
        var databaseFailedAt: ContinuousClock.Instant?
        await withDiscardingTaskGroup { group in
            while true {
                unrecorded += ended.withLock { ended in
                    defer { ended.removeAll(keepingCapacity: true) }
                    return ended
                }
                if Task.isCancelled {
                    // The attempts are cancelled with the loop and the group waits for them; whatever is not
                    // recorded is pending in the database and is sent again after a restart.
                    return
                }
                let stopping = isStopping.load(ordering: .relaxed)
                let databaseResting = databaseFailedAt.map { ContinuousClock.now - $0 < .seconds(1) } ?? false
                if !unrecorded.isEmpty && !databaseResting {
                    do {
                        try database.record(unrecorded)
                        inFlight.subtract(unrecorded.map(\.id))
                        unrecorded.removeAll()
                        databaseFailedAt = nil
                    } catch {
                        databaseFailedAt = databaseFailed(error)
                    }
                }
                if !stopping && !databaseResting {
                    do {
                        let room = configuration.maxInFlight - inFlight.count
                        for delivery in try takeDue(room: room, inFlight, readAhead: &readAhead) {
                            inFlight.insert(delivery.id)
                            group.addImmediateTask {
                                let result = await sender.attempt(delivery)
                                var generator = SystemRandomNumberGenerator()
                                let outcome = self.outcome(for: delivery, after: result, using: &generator)
                                self.ended.withLock { $0.append(outcome) }
                                self.wakeup.signal()
                            }
                        }
                        if unrecorded.isEmpty { databaseFailedAt = nil }
                    } catch {
                        databaseFailedAt = databaseFailed(error)
                    }
                }
                // A delivery stays in flight until its outcome is recorded: none left means none running either.
                if stopping && inFlight.isEmpty { return }
                // With every place taken, an attempt's end wakes the loop: a due delivery must not.
                let isFull = inFlight.count >= configuration.maxInFlight
                let delay: Duration? =
                    databaseFailedAt != nil
                    ? .seconds(1) : stopping || isFull ? nil : nextWake(excluding: inFlight)
                await wakeup.wait(for: delay)
            }
        }
    }

    /// The deliveries to start now, at most `room`: those ``enqueue(_:)`` handed over if there are any (started
    /// without a query, so a tap's webhook waits for no read of the database), otherwise those read ahead, and
    /// when none are left, those due in the state database, none of `inFlight`, up to `maxInFlight` of them, the
    /// rest kept in `readAhead`. Deliveries due meanwhile are found on the loop's next turn: its wait is then
    /// computed as zero.
    private func takeDue(room: Int, _ inFlight: Set<Int64>, readAhead: inout [Delivery]) throws -> [Delivery] {
        guard room > 0 else { return [] }
        return try inserted.withLock { fresh in
            if !fresh.isEmpty {
                let starting = fresh.prefix(room).filter { !inFlight.contains($0.id) }
                fresh.removeFirst(min(fresh.count, room))
                return starting
            }
            if readAhead.isEmpty {
                readAhead = try database.due(
                    .webhook, now: Timestamp.milliseconds(Date()), limit: configuration.maxInFlight,
                    excluding: inFlight)
            }
            let starting = Array(readAhead.prefix(room))
            readAhead.removeFirst(starting.count)
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
