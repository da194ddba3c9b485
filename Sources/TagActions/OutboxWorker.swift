import AsyncHTTPClient
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
        /// How many connections per host the HTTP client may open.
        public var connectionsPerHost: Int
        /// When to retry.
        public var retryPolicy: RetryPolicy

        /// Creates a configuration.
        /// - Parameters:
        ///   - userAgent: the `User-Agent` value.
        ///   - maxInFlight: attempts in flight at once (default 32).
        ///   - connectionsPerHost: connection pool size per host (default 16).
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
    /// Deliveries ``enqueue(_:)`` has written and the loop has not taken yet: handed over in memory, so a new
    /// delivery is sent without the loop reading it back from the state database. A row is written and handed
    /// over under this lock, and the loop reads due rows under it too, excluding those still here: no delivery is
    /// started twice.
    let handover = Mutex<[PendingDelivery]>([])
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

    /// Accepts a delivery: validates it, writes it durably, and wakes the worker.
    /// - Parameter request: the rendered request.
    /// - Returns: the delivery's id in the state database.
    /// - Throws: ``ActionError`` (`invalidRequest`, `stateDatabase`); once this returns, the delivery is durable.
    @discardableResult
    public func enqueue(_ request: WebhookRequest) throws -> Int64 {
        let id = try handover.withLock { queue in
            let now = Date()
            let id = try outbox.insert(request, now: now)
            queue.append(PendingDelivery(id: id, request: request, created: Timestamp.milliseconds(now)))
            return id
        }
        wakeup.signal()
        return id
    }

    /// Sends deliveries until graceful shutdown or cancellation, then shuts its HTTP client down.
    /// - Throws: an error from shutting down the HTTP client (state database errors are logged and retried).
    public func run() async throws {
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connectionsPerHost
        )
        clientConfiguration.timeout = .init(connect: .seconds(10))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        await withGracefulShutdownHandler {
            await self.deliverLoop(sender: WebhookSender(client: client, userAgent: configuration.userAgent))
        } onGracefulShutdown: {
            self.isStopping.store(true, ordering: .relaxed)
            self.wakeup.signal()
        }
        try await client.shutdown()
    }

    /// The delivery loop. State database errors (a locked or full disk) are logged and retried every second:
    /// they never end the router, and outcomes not yet recorded are kept in memory until they are.
    private func deliverLoop(sender: WebhookSender) async {
        var generator = SystemRandomNumberGenerator()
        let maxInFlight = configuration.maxInFlight
        let clock = ContinuousClock()
        await withTaskGroup(of: (PendingDelivery, AttemptResult).self) { group in
            var inFlight = Set<Int64>()
            var unflushed: [DeliveryUpdate] = []
            var lastFlush = clock.now
            var lastDatabaseError: ContinuousClock.Instant?
            while true {
                let stopping = isStopping.load(ordering: .relaxed) || Task.isCancelled
                let databaseResting = lastDatabaseError.map { clock.now - $0 < .seconds(1) } ?? false
                if !stopping {
                    // New deliveries first, straight from enqueue; any left over (at the in-flight limit) are in
                    // the state database, where the query below finds them.
                    for delivery in handover.withLock({ queue in queue.take() })
                    where inFlight.count < maxInFlight && !inFlight.contains(delivery.id) {
                        inFlight.insert(delivery.id)
                        // Immediate: the attempt runs on this thread up to the HTTP client's hop to its event loop.
                        group.addImmediateTask { (delivery, await sender.attempt(delivery)) }
                    }
                }
                if !stopping && !databaseResting && inFlight.count <= maxInFlight / 2 {
                    do {
                        let due = try handover.withLock { queue in
                            try outbox.due(
                                now: Timestamp.milliseconds(Date()),
                                limit: maxInFlight - inFlight.count,
                                excluding: inFlight.union(unflushed.map(\.id)).union(queue.map(\.id))
                            )
                        }
                        for delivery in due {
                            inFlight.insert(delivery.id)
                            group.addTask { (delivery, await sender.attempt(delivery)) }
                        }
                    } catch {
                        lastDatabaseError = databaseFailed(error)
                    }
                }
                if inFlight.isEmpty {
                    if !flush(&unflushed) { lastDatabaseError = clock.now }
                    lastFlush = clock.now
                    if stopping { return }
                    var delay: Duration? = .seconds(1)
                    if lastDatabaseError.map({ clock.now - $0 >= .seconds(1) }) ?? true {
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
                inFlight.remove(delivery.id)
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

extension Array {
    /// Empties the array and returns what it held.
    fileprivate mutating func take() -> [Element] {
        defer { removeAll() }
        return self
    }
}
