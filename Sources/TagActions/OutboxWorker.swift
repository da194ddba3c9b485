import Foundation
public import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization
public import WebhookRetry

/// Delivers the outbox's webhooks: a `Service` whose ``run()`` keeps several requests in flight over keep-alive
/// connections, records every outcome in the state database (in batches), and retries per its ``RetryPolicy``.
///
/// Pending deliveries found at start (left by a crash or a restart) are sent when due. ``run()`` returns on
/// graceful shutdown or cancellation after the attempts in flight have finished and been recorded.
public final class OutboxWorker: Service, Sendable {
    /// Tuning of the worker.
    public struct Configuration: Sendable {
        /// The `User-Agent` sent, `tagrouter/VERSION`.
        public var userAgent: String
        /// How many attempts may be in flight at once.
        public var maxInFlight: Int
        /// How many unused connections per host the HTTP client keeps open (in use at once: up to
        /// ``maxInFlight``, over all hosts).
        public var connectionsPerHost: Int
        /// When to retry.
        public var retryPolicy: RetryPolicy

        /// Creates a configuration.
        /// - Parameters:
        ///   - userAgent: the `User-Agent` value.
        ///   - maxInFlight: attempts in flight at once (default 32).
        ///   - connectionsPerHost: unused connections kept per host (default 16).
        ///   - retryPolicy: the backoff policy.
        public init(
            userAgent: String,
            maxInFlight: Int = 32,
            connectionsPerHost: Int = 16,
            retryPolicy: RetryPolicy = RetryPolicy()
        ) {
            self.userAgent = userAgent
            self.maxInFlight = max(1, maxInFlight)
            self.connectionsPerHost = max(1, connectionsPerHost)
            self.retryPolicy = retryPolicy
        }
    }

    /// The state database holding the deliveries.
    public let outbox: Outbox
    let configuration: Configuration
    let logger: Logger
    let wakeup = Wakeup()
    /// What ``enqueue(_:)`` and the loop share. A row is written and handed over under this lock, and the loop
    /// reads due rows under it too, excluding every delivery this holds: no delivery is started twice.
    let handover = Mutex(Handover())
    let isStopping = Atomic<Bool>(false)

    /// Creates a worker.
    /// - Parameters:
    ///   - outbox: the state database.
    ///   - configuration: the tuning.
    ///   - logger: where deliveries are logged (`http.status`, `event.id`, `rule.name`).
    public init(outbox: Outbox, configuration: Configuration, logger: Logger) {
        self.outbox = outbox
        self.configuration = configuration
        self.logger = logger
    }

    /// Accepts a delivery: validates it, writes it durably, and starts its first attempt.
    ///
    /// The delivery is written before any of its request is sent: with the outbox's intake log (the router's)
    /// that is one `write`, and the row goes into the state database when the loop records the attempt's outcome.
    /// While the worker runs and has room, the attempt then starts at once on the caller's thread
    /// (`Task.immediate`) and runs there up to the HTTP client's hop to its event loop: no wait for the worker's
    /// loop to wake up (docs/development.md, "Tap latency"). Otherwise the delivery is handed to the loop, or left
    /// to its query of due rows.
    /// - Parameter request: the rendered request.
    /// - Returns: the delivery's id in the state database.
    /// - Throws: ``ActionError`` (`invalidRequest`, `stateDatabase`); once this returns, the delivery is durable.
    @discardableResult
    public func enqueue(_ request: WebhookRequest) throws -> Int64 {
        // Validated and built outside the lock the delivery loop shares; only the write and the hand-over are
        // under it.
        let (row, unnumbered) = try outbox.prepare(request, now: Date())
        let (delivery, owesStore, sender) = try handover.withLock {
            shared -> (PendingDelivery, Bool, WebhookSender?) in
            var delivery = unnumbered
            let owesStore: Bool
            (delivery.id, owesStore) = try outbox.accept(row)
            if let sender = shared.sender, shared.inFlight < configuration.maxInFlight {
                shared.direct.updateValue(nil, forKey: delivery.id)
                return (delivery, owesStore, sender)
            }
            shared.queued.append(delivery)
            return (delivery, owesStore, nil)
        }
        let id = delivery.id
        guard let sender else {
            if owesStore { outbox.storeAcceptedOrLog() }
            wakeup.signal()
            return id
        }
        let task = Task.immediate {
            let result = await sender.attempt(delivery)
            self.handover.withLock { shared in
                shared.direct.removeValue(forKey: delivery.id)
                shared.finished.append((delivery, result))
            }
            self.wakeup.signal()
        }
        handover.withLock { shared in
            if shared.direct.keys.contains(id) { shared.direct[id] = task }
        }
        // The row goes into the table when the loop records the attempt's outcome (`Outbox.apply` inserts the
        // accepted rows first): the insert's CPU time is not spent while the request is on its way.
        return id
    }

    /// Sends deliveries until graceful shutdown or cancellation, then shuts its HTTP client down.
    /// - Throws: nothing today (state database errors are logged and retried); `Service` requires the signature.
    public func run() async throws {
        var clientConfiguration = WebhookClient.Configuration()
        clientConfiguration.idleConnectionsPerOrigin = configuration.connectionsPerHost
        let client = WebhookClient(configuration: clientConfiguration)
        let sender = WebhookSender(client: client, userAgent: configuration.userAgent)
        handover.withLock { $0.sender = sender }
        await withGracefulShutdownHandler {
            await self.deliverLoop(sender: sender)
        } onGracefulShutdown: {
            self.isStopping.store(true, ordering: .relaxed)
            self.handover.withLock { $0.sender = nil }
            self.wakeup.signal()
        }
        handover.withLock { $0.sender = nil }
        await client.shutdown()
    }

    /// The delivery loop: it starts the deliveries handed over and those due in the state database, and records
    /// every outcome, those of the attempts ``enqueue(_:)`` started included. State database errors (a locked or
    /// full disk) are logged and retried every second: they never end the router, and outcomes not yet recorded
    /// are kept in memory until they are.
    private func deliverLoop(sender: WebhookSender) async {
        var generator = SystemRandomNumberGenerator()
        let maxInFlight = configuration.maxInFlight
        let clock = ContinuousClock()
        await withTaskGroup(of: (PendingDelivery, AttemptResult).self) { group in
            var unflushed: [DeliveryUpdate] = []
            var lastFlush = clock.now
            var lastDatabaseError: ContinuousClock.Instant?
            while true {
                let stopping = isStopping.load(ordering: .relaxed) || Task.isCancelled
                if Task.isCancelled {
                    let direct = handover.withLock { shared in
                        shared.sender = nil
                        return shared.directTasks
                    }
                    for task in direct { task.cancel() }
                }
                let databaseResting = lastDatabaseError.map { clock.now - $0 < .seconds(1) } ?? false
                for (delivery, result) in handover.withLock({ $0.takeFinished() }) {
                    unflushed.append(update(for: delivery, after: result, using: &generator))
                }
                if !stopping {
                    // Deliveries handed over (the limit was reached when they were enqueued); any left over are
                    // in the state database, where the query below finds them.
                    for delivery in handover.withLock({ $0.takeQueued(limit: maxInFlight) }) {
                        group.addImmediateTask { (delivery, await sender.attempt(delivery)) }
                    }
                }
                if !stopping && !databaseResting {
                    do {
                        let unrecorded = Set(unflushed.map(\.id))
                        let due = try handover.withLock { shared -> [PendingDelivery] in
                            guard shared.inFlight <= maxInFlight / 2 else { return [] }
                            let due = try outbox.due(
                                now: Timestamp.milliseconds(Date()),
                                limit: maxInFlight - shared.inFlight,
                                excluding: unrecorded.union(shared.busy)
                            )
                            shared.started.formUnion(due.map(\.id))
                            return due
                        }
                        for delivery in due {
                            group.addTask { (delivery, await sender.attempt(delivery)) }
                        }
                    } catch {
                        lastDatabaseError = databaseFailed(error)
                    }
                }
                let (loopIdle, directInFlight) = handover.withLock {
                    ($0.started.isEmpty, !$0.direct.isEmpty || !$0.finished.isEmpty)
                }
                if loopIdle {
                    if !flush(&unflushed) { lastDatabaseError = clock.now }
                    lastFlush = clock.now
                    if stopping && !directInFlight { return }
                    if Task.isCancelled {
                        // The wait below would return at once: wait for the cancelled first attempts themselves.
                        for task in handover.withLock({ $0.directTasks }) { await task.value }
                        continue
                    }
                    var delay: Duration? = .seconds(1)
                    if !directInFlight && lastDatabaseError.map({ clock.now - $0 >= .seconds(1) }) ?? true {
                        do {
                            let next = try outbox.nextAttemptTime(excluding: [])
                            delay = next.map { .milliseconds(max(0, $0 - Timestamp.milliseconds(Date()))) }
                        } catch {
                            lastDatabaseError = databaseFailed(error)
                        }
                    }
                    await wakeup.wait(for: delay)
                    continue
                }
                guard let (delivery, result) = await group.next() else { continue }
                handover.withLock { _ = $0.started.remove(delivery.id) }
                unflushed.append(update(for: delivery, after: result, using: &generator))
                if unflushed.count >= 64 || clock.now - lastFlush > .milliseconds(50) {
                    if !flush(&unflushed) { lastDatabaseError = clock.now }
                    lastFlush = clock.now
                }
            }
        }
    }

    /// Records outcomes; on failure logs and keeps them for the next try.
    /// - Returns: whether they were recorded.
    private func flush(_ updates: inout [DeliveryUpdate]) -> Bool {
        do {
            try outbox.apply(updates)
            updates.removeAll(keepingCapacity: true)
            return true
        } catch {
            _ = databaseFailed(error)
            return false
        }
    }

    private func databaseFailed(_ error: any Error) -> ContinuousClock.Instant {
        logger.error("webhook outbox: state database error, retrying in 1 s", metadata: ["error": "\(error)"])
        return ContinuousClock.now
    }

    /// The row change after one attempt, and its log line.
    func update(
        for delivery: PendingDelivery,
        after result: AttemptResult,
        using generator: inout some RandomNumberGenerator
    ) -> DeliveryUpdate {
        let now = Timestamp.milliseconds(Date())
        let attempts = delivery.attempts + 1
        var logger = self.logger
        logger[metadataKey: "event.id"] = "\(delivery.eventID)"
        logger[metadataKey: "rule.name"] = "\(delivery.rule)"
        logger[metadataKey: "action.kind"] = "webhook"
        logger[metadataKey: "webhook.attempts"] = "\(attempts)"
        if let status = result.status { logger[metadataKey: "http.status"] = "\(status)" }
        var update = DeliveryUpdate(
            id: delivery.id,
            state: .delivered,
            status: result.status,
            error: result.error,
            nextAttemptAt: now,
            finishedAt: now
        )
        switch result.verdict {
        case .delivered:
            logger.debug("webhook delivered", metadata: ["webhook.url": "\(WebhookRequest.redacted(delivery.url))"])
        case .failed:
            update.state = .failed
            logger.error("webhook failed", metadata: ["error": "\(result.error ?? "")"])
        case .retry where now >= delivery.deadline:
            update.state = .failed
            update.error = (result.error ?? "failed") + "; gave up after \(attempts) attempts"
            logger.error("webhook failed", metadata: ["error": "\(update.error ?? "")"])
        case .retry:
            let delay = configuration.retryPolicy.delayMilliseconds(
                afterAttempts: attempts,
                retryAfter: result.retryAfter,
                using: &generator
            )
            update.state = .pending
            update.finishedAt = nil
            update.nextAttemptAt = min(now + delay, delivery.deadline)
            logger.warning(
                "webhook attempt failed, will retry",
                metadata: ["error": "\(result.error ?? "")", "webhook.retry_in_ms": "\(update.nextAttemptAt - now)"]
            )
        }
        return update
    }
}

/// What ``OutboxWorker/enqueue(_:)`` and the delivery loop share, under the worker's lock.
struct Handover: Sendable {
    /// The sender while the loop runs: ``OutboxWorker/enqueue(_:)`` starts first attempts with it.
    var sender: WebhookSender?
    /// Deliveries written and handed over, not started yet.
    var queued: [PendingDelivery] = []
    /// Attempts the loop started in its task group that have not finished.
    var started: Set<Int64> = []
    /// First attempts ``OutboxWorker/enqueue(_:)`` started that have not finished, with their task (`nil` in the
    /// instant before `enqueue` stores it); cancelled when the worker is.
    var direct: [Int64: Task<Void, Never>?] = [:]
    /// Their outcomes, for the loop to record.
    var finished: [(PendingDelivery, AttemptResult)] = []

    /// Attempts started and not yet taken for recording, whoever started them; at most `maxInFlight`.
    var inFlight: Int { started.count + direct.count + finished.count }

    /// The tasks of the first attempts in flight.
    var directTasks: [Task<Void, Never>] { direct.values.compactMap { $0 } }

    /// Every delivery held here: the query of due rows must not start them again.
    var busy: Set<Int64> {
        Set(queued.map(\.id)).union(started).union(direct.keys).union(finished.map(\.0.id))
    }

    /// Takes the outcomes to record.
    mutating func takeFinished() -> [(PendingDelivery, AttemptResult)] {
        defer { finished.removeAll() }
        return finished
    }

    /// Takes the deliveries handed over that fit under `limit` attempts in flight, as started by the loop.
    mutating func takeQueued(limit: Int) -> [PendingDelivery] {
        let taken = Array(queued.prefix(max(0, limit - inFlight)))
        queued.removeFirst(taken.count)
        started.formUnion(taken.map(\.id))
        return taken
    }
}
