import Foundation
import GRDB
import HTTPTestSupport
import Logging
import ServiceLifecycle
import StateStore
import TagActions
import TestSupport
import Testing

@Suite("OutboxWorker as a Service")
struct OutboxWorkerLifecycleTests {
    @Test("graceful shutdown ends run(); undelivered deliveries stay pending for the next start")
    func gracefulShutdownKeepsPending() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let port = try await HTTPTestServer.freePort()
            let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let worker = OutboxWorker(
                database: outbox,
                configuration: .init(userAgent: "tagrouter/test", retryPolicy: WorkerHarness.fastRetries),
                logger: TestEnvironment.logger
            )
            let group = ServiceGroup(
                configuration: .init(services: [worker], logger: TestEnvironment.logger)
            )
            let eventID = EventID.make()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try worker.enqueue(
                    Delivery.webhook(
                        url: "http://127.0.0.1:\(port)/down",
                        timeout: .milliseconds(300),
                        eventID: eventID,
                        rule: "r"
                    )
                )
                _ = try await WorkerHarness.waitForDelivery(outbox, eventID: eventID) { $0.attempts >= 1 }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try outbox.deliveries(eventID: eventID).map(\.state) == [.pending])

            // The next start delivers it.
            let server = try await HTTPTestServer.start(port: port) { _, _ in .status(200) }
            try await WorkerHarness.run(stateDirectory: directory) { worker, _ in
                let record = try await WorkerHarness.waitForDelivery(worker.database, eventID: eventID) {
                    $0.state == .delivered
                }
                #expect(record?.state == .delivered)
            }
            #expect(server.requests.count == 1)
            try await server.stop()
        }
    }

    @Test("a huge answer body is not read beyond the bound and does not stall delivery")
    func hugeAnswerBody() async throws {
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 8 * 1024 * 1024)
        let server = try await HTTPTestServer.start { _, _ in .status(502, body: huge) }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        try await WorkerHarness.run { worker, _ in
            try worker.enqueue(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(server.port)/h",
                    retryFor: .milliseconds(1),
                    eventID: eventID,
                    rule: "r"
                )
            )
            let record = try await WorkerHarness.waitUntilSettled(worker.database, eventID: eventID)
            #expect(record?.state == .failed)
            #expect(record?.lastStatus == 502)
            let error = try #require(record?.lastError)
            #expect(error.count < 400)
            #expect(error.hasPrefix("POST http://127.0.0.1:\(server.port)/<141582aa>: HTTP 502: xxxx"))
            #expect(server.requests.count == 1)
        }
    }
}

@Suite("OutboxWorker and a locked state database")
struct OutboxWorkerDatabaseErrorTests {
    @Test("a locked database delays recording but neither ends the worker nor sends twice")
    func lockedDatabaseIsRetried() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let server = try await HTTPTestServer.start { _, _ in .status(200) }
            let database = try StateDatabase(
                directory: directory, busyTimeout: .milliseconds(50), logger: TestEnvironment.logger)
            let eventID = EventID.make()
            _ = try database.insert(
                Delivery.webhook(url: "http://127.0.0.1:\(server.port)/h", eventID: eventID, rule: "r"))
            // Another connection holds the write lock: the worker can read and send, but not record.
            var configuration = GRDB.Configuration()
            configuration.allowsUnsafeTransactions = true
            let locker = try DatabaseQueue(path: database.path, configuration: configuration)
            try locker.inDatabase { try $0.execute(sql: "BEGIN IMMEDIATE") }
            let log = LogRecorder.Lines()
            let worker = OutboxWorker(
                database: database, configuration: .init(userAgent: "tagrouter/test"), logger: log.logger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await worker.run() }
                try await server.waitForRequests(1)
                // Recording the answer failed twice (tried again after a second): still pending, sent once.
                try await log.wait(for: "webhook outbox: state database error, retrying in 1 s", count: 2)
                #expect(try database.deliveries(eventID: eventID).map(\.state) == [.pending])
                #expect(server.requests.count == 1)
                try locker.inDatabase { try $0.execute(sql: "COMMIT") }
                let record = try await WorkerHarness.waitForDelivery(database, eventID: eventID) {
                    $0.state == .delivered
                }
                #expect(record?.attempts == 1)
                tasks.cancelAll()
            }
            #expect(server.requests.count == 1)
            try await server.stop()
        }
    }
}

extension OutboxWorkerLifecycleTests {
    @Test("at the in-flight limit, new deliveries wait and each is sent once")
    func inFlightLimitHoldsNewDeliveries() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            // The first two requests hang until their attempt times out; every other request is answered.
            let server = try await HTTPTestServer.start { _, index in index < 2 ? .hang : .status(200) }
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let log = LogRecorder.Lines()
            let worker = OutboxWorker(
                database: database,
                configuration: .init(
                    userAgent: "tagrouter/test", maxInFlight: 2, retryPolicy: WorkerHarness.fastRetries),
                logger: log.logger
            )
            let events = (0..<5).map { _ in EventID.make() }
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await worker.run() }
                for event in events {
                    try worker.enqueue(
                        Delivery.webhook(
                            url: "http://127.0.0.1:\(server.port)/h", timeout: .seconds(2), eventID: event,
                            rule: "r"))
                }
                for event in events {
                    let record = try await WorkerHarness.waitForDelivery(database, eventID: event) {
                        $0.state == .delivered
                    }
                    #expect(record?.state == .delivered)
                }
                tasks.cancelAll()
            }
            // Nothing else was sent while the two hanging requests held the two places: every later request
            // arrived after the first of them timed out.
            let timedOut = try #require(log.with(message: "webhook attempt failed, will retry").first)
            #expect(server.requests.dropFirst(2).allSatisfy { $0.receivedAt > timedOut.time })
            let sent = server.requests.compactMap { $0.header("X-TagRouter-Event") }
            // The two that hung were sent again after their timeout; the three others once each.
            #expect(sent.count == 7)
            for (index, event) in events.enumerated() {
                #expect(sent.filter { $0 == event }.count == (index < 2 ? 2 : 1), "event \(index)")
            }
            try await server.stop()
        }
    }
}

extension OutboxWorkerLifecycleTests {
    @Test("cancelled with a first attempt hanging, run() returns and the delivery stays pending, sent once")
    func cancellationEndsAttemptStartedByEnqueue() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let server = try await HTTPTestServer.start { _, _ in .hang }
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let worker = OutboxWorker(
                database: database, configuration: .init(userAgent: "tagrouter/test"), logger: TestEnvironment.logger)
            let eventID = EventID.make()
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await worker.run() }
                // The worker's client exists once run() has started: wait until the enqueued delivery's request
                // arrives, whoever started it (enqueue itself, or the loop's first turn).
                try worker.enqueue(
                    Delivery.webhook(
                        url: "http://127.0.0.1:\(server.port)/h", timeout: .seconds(600), eventID: eventID, rule: "r"))
                try await server.waitForRequests(1)
                tasks.cancelAll()
                // run() closes its client, which ends the hanging attempt: the group's wait returns.
                try await tasks.waitForAll()
            }
            let record = try #require(try database.deliveries(eventID: eventID).first)
            #expect(record.state == .pending)
            #expect(record.attempts == 0)
            #expect(server.requests.count == 1)
            try await server.stop()
        }
    }
}
