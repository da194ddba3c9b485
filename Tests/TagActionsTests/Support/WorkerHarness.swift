import Foundation
import HTTPTestSupport
import Logging
import ServiceLifecycle
import StateStore
import TagActions
import WebhookRetry

/// An outbox in a temporary state directory with its worker running, for the length of `body`.
enum WorkerHarness {
    static let fastRetries = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(400))

    static func run<T: Sendable>(
        retryPolicy: RetryPolicy = fastRetries,
        maxInFlight: Int = 32,
        environment: [String: String] = [:],
        stateDirectory: String? = nil,
        _ body: @escaping @Sendable (OutboxWorker, String) async throws -> T
    ) async throws -> T {
        try await TestEnvironment.withTemporaryDirectory { temporary in
            let directory = stateDirectory ?? temporary
            let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let worker = OutboxWorker(
                database: outbox,
                configuration: .init(
                    userAgent: "tagrouter/test", maxInFlight: maxInFlight, retryPolicy: retryPolicy,
                    environment: environment),
                logger: TestEnvironment.logger
            )
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    try await worker.run()
                    return nil
                }
                group.addTask { try await body(worker, directory) }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                throw CancellationError()
            }
        }
    }

    /// Polls the history until `predicate` holds for the delivery of `eventID`, or 20 s pass.
    static func waitForDelivery(
        _ outbox: StateDatabase,
        eventID: String,
        timeout: Duration = .seconds(20),
        until predicate: (Delivery) -> Bool
    ) async throws -> Delivery? {
        let deadline = ContinuousClock.now + timeout
        var last: Delivery?
        while ContinuousClock.now < deadline {
            last = try outbox.deliveries(eventID: eventID).first
            if let last, predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(20))
        }
        return last
    }

    /// Enqueues `request` and waits until its delivery is no longer pending.
    static func deliver(_ request: Delivery, with worker: OutboxWorker) async throws -> Delivery? {
        try worker.enqueue(request)
        return try await waitUntilSettled(worker.database, eventID: request.eventID)
    }

    /// Waits until the delivery of `eventID` is no longer pending (delivered or failed).
    static func waitUntilSettled(_ outbox: StateDatabase, eventID: String) async throws -> Delivery? {
        try await waitForDelivery(outbox, eventID: eventID) { $0.state != .pending }
    }
}
