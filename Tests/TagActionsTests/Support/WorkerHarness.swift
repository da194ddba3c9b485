import Foundation
import HTTPTestSupport
import Logging
import ServiceLifecycle
import TagActions
import WebhookRetry

/// An outbox in a temporary state directory with its worker running, for the length of `body`.
enum WorkerHarness {
    static let fastRetries = RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(400))

    static func run<T: Sendable>(
        retryPolicy: RetryPolicy = fastRetries,
        stateDirectory: String? = nil,
        _ body: @escaping @Sendable (OutboxWorker, String) async throws -> T
    ) async throws -> T {
        try await TestEnvironment.withTemporaryDirectory { temporary in
            let directory = stateDirectory ?? temporary
            let outbox = try Outbox(directory: directory, logger: TestEnvironment.logger)
            let worker = OutboxWorker(
                outbox: outbox,
                configuration: .init(userAgent: "tagrouter/test", retryPolicy: retryPolicy),
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
        _ outbox: Outbox,
        eventID: String,
        timeout: Duration = .seconds(20),
        until predicate: (DeliveryRecord) -> Bool
    ) async throws -> DeliveryRecord? {
        let deadline = ContinuousClock.now + timeout
        var last: DeliveryRecord?
        while ContinuousClock.now < deadline {
            last = try outbox.deliveries(eventID: eventID).first
            if let last, predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(20))
        }
        return last
    }

    /// Waits until the delivery of `eventID` is no longer pending (delivered or failed).
    static func waitUntilSettled(_ outbox: Outbox, eventID: String) async throws -> DeliveryRecord? {
        try await waitForDelivery(outbox, eventID: eventID) { $0.state != "pending" }
    }
}
