import Crypto
import Foundation
import HTTPTestSupport
import StateStore
import Synchronization
import TagActions
import TestSupport
import Testing

@Suite("Webhook delivery to a real HTTP server")
struct WebhookDeliveryTests {
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test("method, headers, body and an independently recomputed signature arrive")
    func requestArrivesSigned() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(204) }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        let body = Array(#"{"tag_id": "04A1", "device_id": "door \"1\""}"#.utf8)
        try await WorkerHarness.run { worker, _ in
            try worker.enqueue(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(server.port)/api/events/tag_scanned?x=%3B",
                    method: "PUT",
                    headers: [.init("Authorization", "Bearer abc"), .init("X-TagRouter-Event", "forged")],
                    body: body,
                    secret: "s3cret",
                    eventID: eventID,
                    rule: "door"
                )
            )
            let delivered = try await WorkerHarness.waitForDelivery(worker.database, eventID: eventID) {
                $0.state == .delivered
            }
            #expect(delivered?.attempts == 1)
            #expect(delivered?.lastStatus == 204)
        }
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "PUT")
        #expect(request.uri == "/api/events/tag_scanned?x=%3B")
        #expect(request.body == body)
        #expect(request.header("Authorization") == "Bearer abc")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("User-Agent") == "tagrouter/test")
        #expect(request.headerValues("X-TagRouter-Event") == [eventID])
        let timestamp = try #require(request.header("X-TagRouter-Timestamp"))
        let seconds = try #require(Int64(timestamp))
        #expect(abs(seconds - Int64(Date().timeIntervalSince1970)) < 60)
        let expected = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).".utf8) + request.body,
            using: SymmetricKey(data: Array("s3cret".utf8))
        )
        #expect(request.header("X-TagRouter-Signature") == "sha256=" + Self.hex(expected))
    }

    @Test("retry now: a failed webhook made due again is sent at once when the worker is woken")
    func wakeSendsAWebhookMadeDueAgain() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(204) }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        try await WorkerHarness.run { worker, _ in
            // Failed, its next attempt a day away (accepted "tomorrow", so that the worker cannot take it up
            // before it is marked failed): the worker, with nothing due, sleeps until woken.
            let failed = try worker.database.insert(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(server.port)/hook", body: Array("{}".utf8), eventID: eventID, rule: "r",
                    acceptedAt: Date() + 86_400))
            let tomorrow = Timestamp.milliseconds(Date()) + 86_400_000
            try worker.database.record([
                DeliveryOutcome(
                    id: failed.id, state: .failed, error: "HTTP 500", nextAttemptAt: tomorrow, finishedAt: tomorrow)
            ])
            // The loop asleep with no turn of its own for hours: it has passed over the failed row.
            func asleepForHours() -> Bool {
                guard case .waiting(let until) = worker.loopState else { return false }
                return until.map { $0 > .now + .seconds(3_600) } ?? true
            }
            try await waitUntil("the worker asleep for hours") { asleepForHours() }
            // Made due, as the console's "retry now" does: the loop still sleeps, and sends it only once woken.
            #expect(try worker.database.retryDeliveryNow(id: failed.id))
            #expect(asleepForHours())
            #expect(server.requests.isEmpty)
            worker.wake()
            let delivered = try await WorkerHarness.waitForDelivery(worker.database, eventID: eventID) {
                $0.state == .delivered
            }
            #expect(delivered != nil)
        }
        #expect(server.requests.count == 1)
    }

    @Test("500, then 503 with Retry-After: 1, then 200: delivered on the third attempt, Retry-After honoured")
    func retriesUntilSuccess() async throws {
        let server = try await HTTPTestServer.start { _, index in
            switch index {
            case 0: .status(500, body: Array("boom".utf8))
            case 1: .status(503, headers: [("Retry-After", "1")])
            default: .status(200)
            }
        }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        try await WorkerHarness.run { worker, _ in
            try worker.enqueue(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(server.port)/hook", body: [1, 2, 3], eventID: eventID, rule: "r")
            )
            let record = try await WorkerHarness.waitForDelivery(worker.database, eventID: eventID) {
                $0.state == .delivered
            }
            #expect(record?.attempts == 3)
            #expect(record?.lastStatus == 200)
        }
        let requests = server.requests
        #expect(requests.count == 3)
        #expect(Set(requests.map { $0.header("X-TagRouter-Event") }) == [eventID])
        #expect(requests.allSatisfy { $0.body == [1, 2, 3] })
        #expect(requests[2].receivedAt - requests[1].receivedAt >= .milliseconds(950))
    }

    @Test("a closed port is retried until the receiver comes up")
    func closedPortIsRetried() async throws {
        let port = try await HTTPTestServer.freePort()
        let eventID = EventID.make()
        let server = try await WorkerHarness.run { worker, _ in
            try worker.enqueue(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(port)/hook", timeout: .seconds(1), eventID: eventID, rule: "r")
            )
            let retrying = try await WorkerHarness.waitForDelivery(worker.database, eventID: eventID) {
                $0.attempts >= 2
            }
            #expect(retrying?.state == .pending)
            #expect(retrying?.lastStatus == nil)
            #expect(retrying?.lastError?.hasPrefix("POST http://127.0.0.1:\(port)/<6fc2d051>: ") == true)
            let server = try await HTTPTestServer.start(port: port) { _, _ in .status(200) }
            let delivered = try await WorkerHarness.waitForDelivery(worker.database, eventID: eventID) {
                $0.state == .delivered
            }
            #expect(delivered?.lastStatus == 200)
            return server
        }
        #expect(server.requests.count == 1)
        try await server.stop()
    }

    @Test("400 fails at once, without retry, and is listed by history --failed")
    func clientErrorFailsWithoutRetry() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(400, body: Array("bad tag\r\nid".utf8)) }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        try await WorkerHarness.run { worker, _ in
            try worker.enqueue(
                Delivery.webhook(url: "http://127.0.0.1:\(server.port)/hook?token=SECRET", eventID: eventID, rule: "r")
            )
            let record = try await WorkerHarness.waitUntilSettled(worker.database, eventID: eventID)
            #expect(record?.state == .failed)
            #expect(record?.attempts == 1)
            #expect(record?.lastStatus == 400)
            #expect(record?.lastError == "POST http://127.0.0.1:\(server.port)/<161e676c>: HTTP 400: bad tagid")
            let failed = try worker.database.history(failedOnly: true).deliveries
            #expect(failed.map(\.eventID) == [eventID])
            #expect(!failed[0].shownTarget.contains("SECRET"))
            let text = try worker.database.history(failedOnly: true).text()
            #expect(
                text.contains(
                    "  failed     POST http://127.0.0.1:\(server.port)/<161e676c>  rule=r  attempts=1  status=400"
                        + "  error=POST http://127.0.0.1:\(server.port)/<161e676c>: HTTP 400: bad tagid\n"
                ),
                "\(text)"
            )
            #expect(!text.contains("SECRET"))
        }
        #expect(server.requests.count == 1)
    }

    @Test("a receiver that never answers, or closes without answering, is timed out and retried")
    func silentReceiverIsRetried() async throws {
        let server = try await HTTPTestServer.start { _, index in
            switch index {
            case 0: .hang
            case 1: .close
            default: .status(200)
            }
        }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        let enqueued = Mutex(ContinuousClock.now)
        let attempts = Mutex(0)
        try await WorkerHarness.run { worker, _ in
            enqueued.withLock { $0 = .now }
            try worker.enqueue(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(server.port)/slow",
                    timeout: .milliseconds(300),
                    eventID: eventID,
                    rule: "r"
                )
            )
            let record = try await WorkerHarness.waitUntilSettled(worker.database, eventID: eventID)
            // The hang timed out (attempt 1). The close is sent again at once within attempt 2 and answered; on a
            // loaded machine the close can come after attempt 2's 300 ms, and attempt 3 sends it again.
            #expect(record?.state == .delivered)
            #expect(record.map { (2...3).contains($0.attempts) } == true)
            attempts.withLock { $0 = record?.attempts ?? 0 }
        }
        let requests = server.requests
        // The hang, the close and the answered request: the close's resend is within attempt 2, or, on a loaded
        // machine, attempt 3 (with or without a resend in attempt 2 that timed out first).
        let attemptCount = attempts.withLock { $0 }
        #expect(requests.count >= 3 && requests.count <= attemptCount + 1, "\(requests.count) for \(attemptCount)")
        // The first attempt's 300 ms run from its start, connecting included (not from the receiver's copy of
        // the request, which a loaded machine delivers tens of ms later): the retry comes after them.
        #expect(requests[1].receivedAt - enqueued.withLock { $0 } >= .milliseconds(300))
        #expect(requests[1].receivedAt > requests[0].receivedAt)
    }

    @Test("a garbage status line is a retried error naming the URL")
    func garbageAnswerIsRetried() async throws {
        let server = try await HTTPTestServer.start { _, index in
            index == 0 ? .raw(Array("HTTP/1.1 99999999999 \u{1}\u{2}\r\n\r\n".utf8)) : .status(200)
        }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        try await WorkerHarness.run { worker, _ in
            try worker.enqueue(Delivery.webhook(url: "http://127.0.0.1:\(server.port)/g", eventID: eventID, rule: "r"))
            let record = try await WorkerHarness.waitUntilSettled(worker.database, eventID: eventID)
            #expect(record?.state == .delivered)
            #expect(record?.attempts == 2)
        }
    }

    @Test("retries stop at retryFor: the delivery is kept as failed")
    func retryForIsHonoured() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(503, headers: [("Retry-After", "99999999")]) }
        defer { Task { try? await server.stop() } }
        let eventID = EventID.make()
        try await WorkerHarness.run { worker, _ in
            try worker.enqueue(
                Delivery.webhook(
                    url: "http://127.0.0.1:\(server.port)/h",
                    retryFor: .seconds(6),
                    eventID: eventID,
                    rule: "r"
                )
            )
            let record = try await WorkerHarness.waitUntilSettled(worker.database, eventID: eventID)
            #expect(record?.state == .failed)
            #expect(record?.lastStatus == 503)
            #expect(record?.lastError?.hasSuffix("; gave up after 2 attempts") == true)
        }
        #expect(server.requests.count == 2)
    }

    @Test("an invalid request is refused before it is stored")
    func invalidRequestIsRefused() async throws {
        try await WorkerHarness.run { worker, _ in
            #expect(throws: ActionError.self) {
                try worker.enqueue(Delivery.webhook(url: "file:///etc/passwd", eventID: "e", rule: "r"))
            }
            #expect(throws: ActionError.self) {
                try worker.enqueue(
                    Delivery.webhook(url: "http://h/", headers: [.init("X", "a\r\nEvil: 1")], eventID: "e", rule: "r")
                )
            }
            let counts = try worker.database.deliveryCounts()
            #expect(counts.isEmpty)
        }
    }
}
