import Foundation
import HTTPTestSupport
import Logging
import NIOSSL
import ServiceLifecycle
import StateStore
import TagRules
import Testing
import WebhookTarget

@testable import TagActions

/// Webhooks go through AsyncHTTPClient: what the receiver reads, connection reuse, answers of every shape, TLS,
/// mutual TLS, IPv6 and proxies, each against a real server on this machine.
@Suite("Webhooks over HTTP: connections, TLS, IPv6 and proxies against real servers")
struct WebhookHTTPTests {
    static func request(
        _ url: String, method: String = "POST", body: [UInt8] = Array("{}".utf8), timeout: Duration = .seconds(5),
        retryFor: Duration = .seconds(86_400), transport: WebhookTransport = WebhookTransport()
    ) -> Delivery {
        Delivery.webhook(
            url: url, method: method, headers: [.init("X-Test", "1")], body: body, timeout: timeout,
            retryFor: retryFor, eventID: EventID.make(), rule: "r", transport: transport)
    }

    @Test("deliveries to one receiver share a kept-alive connection, one after another")
    func keptAliveConnectionIsReused() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(204) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            for _ in 0..<3 {
                let delivery = try await WorkerHarness.deliver(
                    Self.request("http://127.0.0.1:\(server.port)/hook"), with: worker)
                #expect(delivery?.state == .delivered)
                #expect(delivery?.attempts == 1)
            }
        }
        #expect(server.requests.map(\.connection) == [0, 0, 0])
    }

    @Test("a kept-alive connection closed as the request arrives: sent again at once, not counted as a failure")
    func droppedKeptAliveConnectionIsResentOnce() async throws {
        let server = try await HTTPTestServer.start { _, index in index == 1 ? .close : .status(200) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            for _ in 0..<2 {
                let delivery = try await WorkerHarness.deliver(
                    Self.request("http://127.0.0.1:\(server.port)/hook"), with: worker)
                #expect(delivery?.state == .delivered)
                #expect(delivery?.attempts == 1)
                #expect(delivery?.lastError == nil)
            }
        }
        let requests = server.requests
        #expect(requests.map(\.connection) == [0, 0, 1])
        // The repeat carries the same event id: the receiver can drop the duplicate.
        #expect(requests[1].header("X-TagRouter-Event") == requests[2].header("X-TagRouter-Event"))
    }

    @Test("an answer with Connection: close is read and its connection is not used again")
    func connectionCloseIsHonoured() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(200, headers: [("Connection", "close")]) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            for _ in 0..<2 {
                let delivery = try await WorkerHarness.deliver(
                    Self.request("http://127.0.0.1:\(server.port)/"), with: worker)
                #expect(delivery?.state == .delivered)
            }
        }
        #expect(server.requests.map(\.connection) == [0, 1])
    }

    @Test("the request line, Host, Content-Length and a GET without body are what the server reads")
    func requestOnTheWire() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(200) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            _ = try await WorkerHarness.deliver(
                Self.request("http://127.0.0.1:\(server.port)/a%20b/c?x=%3B&y", body: [1, 2, 3]), with: worker)
            _ = try await WorkerHarness.deliver(
                Self.request("http://127.0.0.1:\(server.port)", method: "GET", body: []), with: worker)
        }
        let requests = server.requests
        #expect(requests[0].uri == "/a%20b/c?x=%3B&y")
        #expect(requests[0].header("Host") == "127.0.0.1:\(server.port)")
        #expect(requests[0].header("Content-Length") == "3")
        #expect(requests[0].header("X-Test") == "1")
        #expect(requests[0].body == [1, 2, 3])
        #expect(requests[1].method == "GET")
        #expect(requests[1].uri == "/")
        #expect(requests[1].header("Content-Length") == nil)
        #expect(requests[1].header("Transfer-Encoding") == nil)
    }

    @Test("a redirect is an error that names its Location (its query removed), and is not followed")
    func redirectIsRefused() async throws {
        let server = try await HTTPTestServer.start { _, _ in
            .status(302, headers: [("Location", "http://127.0.0.1:1/elsewhere?token=SECRET")])
        }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            let delivery = try await WorkerHarness.deliver(
                Self.request("http://127.0.0.1:\(server.port)/hook"), with: worker)
            #expect(delivery?.state == .failed)
            #expect(delivery?.attempts == 1)
            #expect(
                delivery?.lastError
                    == "POST http://127.0.0.1:\(server.port)/<6fc2d051>: HTTP 302 (redirects are not followed; Location: http://127.0.0.1:1/<4d61a080>)"
            )
        }
        #expect(server.requests.count == 1)
    }

    @Test("informational 1xx answers are skipped, and a chunked answer is read")
    func informationalAndChunkedAnswers() async throws {
        let answer =
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n"
            + "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nbusy \r\n3\r\nnow\r\n0\r\n\r\n"
        let server = try await HTTPTestServer.start { _, index in
            index == 0 ? .raw(Array(answer.utf8)) : .status(200)
        }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            let request = Self.request("http://127.0.0.1:\(server.port)/hook")
            try worker.enqueue(request)
            let retried = try await WorkerHarness.waitForDelivery(worker.database, eventID: request.eventID) {
                $0.attempts >= 1
            }
            #expect(retried?.lastStatus == 503)
            #expect(retried?.lastError == "POST http://127.0.0.1:\(server.port)/<6fc2d051>: HTTP 503: busy now")
            let delivered = try await WorkerHarness.waitUntilSettled(worker.database, eventID: request.eventID)
            #expect(delivered?.state == .delivered)
        }
    }

    @Test("IPv6 literals are delivered, with the brackets in Host only")
    func ipv6LiteralIsDelivered() async throws {
        let server = try await HTTPTestServer.start(host: "::1") { _, _ in .status(200) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            let delivery = try await WorkerHarness.deliver(
                Self.request("http://[::1]:\(server.port)/hook?x=1"), with: worker)
            #expect(delivery?.state == .delivered, "\(delivery?.lastError ?? "")")
        }
        #expect(server.requests.first?.header("Host") == "[::1]:\(server.port)")
        #expect(server.requests.first?.uri == "/hook?x=1")
    }

    @Test("https: verified against the system's roots plus the webhook's own CA file; TLS 1.2 at least")
    func httpsWithPrivateCA() async throws {
        let authority = try TestCertificateAuthority.make()
        defer { authority.remove() }
        let server = try await HTTPTestServer.start(tls: try authority.issue(for: "localhost")) { _, _ in
            .status(201)
        }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            let url = "https://localhost:\(server.port)/hook"
            let trusted = try await WorkerHarness.deliver(
                Self.request(url, transport: WebhookTransport(caFile: authority.certificate)), with: worker)
            #expect(trusted?.state == .delivered, "\(trusted?.lastError ?? "")")
            // Without the CA file the system's trust store does not know this authority: retried, naming why.
            let untrusted = Self.request(url, retryFor: .zero)
            let refused = try await WorkerHarness.deliver(untrusted, with: worker)
            #expect(refused?.state == .failed)
            #expect(refused?.lastError?.contains("TLS handshake failed") == true, "\(refused?.lastError ?? "")")
            #expect(refused?.lastError?.contains("CERTIFICATE_VERIFY_FAILED") == true)
        }
        #expect(server.requests.count == 1)
        #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
        // A receiver that speaks nothing newer than TLS 1.1 is refused, with the webhook's own CA or without.
        let old = try await HTTPTestServer.start(
            tls: try authority.issue(for: "localhost"), maximumTLSVersion: .tlsv11
        ) { _, _ in .status(201) }
        defer { Task { try? await old.stop() } }
        try await WorkerHarness.run { worker, _ in
            for transport in [WebhookTransport(caFile: authority.certificate), WebhookTransport()] {
                let refused = try await WorkerHarness.deliver(
                    Self.request("https://localhost:\(old.port)/hook", retryFor: .zero, transport: transport),
                    with: worker)
                #expect(refused?.state == .failed)
                #expect(refused?.lastError?.contains("TLS handshake failed") == true, "\(refused?.lastError ?? "")")
            }
        }
        #expect(old.requests.isEmpty)
    }

    @Test("mutual TLS: the webhook's client certificate is presented; without it the receiver refuses")
    func mutualTLS() async throws {
        let authority = try TestCertificateAuthority.make()
        defer { authority.remove() }
        let client = try authority.issue(for: "tagrouter.client", forClient: true)
        let server = try await HTTPTestServer.start(
            tls: try authority.issue(for: "localhost"), clientCertificatesFrom: authority.certificate
        ) { _, _ in .status(200) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run { worker, _ in
            let url = "https://localhost:\(server.port)/hook"
            let withCertificate = WebhookTransport(
                caFile: authority.certificate, certificateFile: client.certificate, keyFile: client.key)
            let accepted = try await WorkerHarness.deliver(Self.request(url, transport: withCertificate), with: worker)
            #expect(accepted?.state == .delivered, "\(accepted?.lastError ?? "")")
            let anonymous = try await WorkerHarness.deliver(
                Self.request(url, retryFor: .zero, transport: WebhookTransport(caFile: authority.certificate)),
                with: worker)
            #expect(anonymous?.state == .failed)
        }
        #expect(server.requests.count == 1)
    }

    @Test("TLS files that cannot be loaded fail the delivery at once instead of retrying it for a day")
    func unusableTLSFilesFailAtOnce() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let garbage = directory + "/ca.pem"
            try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: garbage))
            try await WorkerHarness.run { worker, _ in
                let delivery = try await WorkerHarness.deliver(
                    Self.request("https://localhost:9/hook", transport: WebhookTransport(caFile: garbage)),
                    with: worker)
                #expect(delivery?.state == .failed)
                #expect(delivery?.attempts == 1)
                #expect(delivery?.lastError?.contains("tls") == true, "\(delivery?.lastError ?? "")")
            }
        }
    }

    @Test("a silent TLS listener fails each attempt at its deadline while other receivers keep getting theirs")
    func silentTLSListenerTimesOut() async throws {
        let silent = try SilentListener()
        let server = try await HTTPTestServer.start { _, _ in .status(200) }
        defer { Task { try? await server.stop() } }
        try await WorkerHarness.run(maxInFlight: 4) { worker, _ in
            // More silent deliveries than places in flight: before the deadline, they held every place for ever.
            let stuck = (0..<6).map { _ in
                Self.request("https://localhost:\(silent.port)/hook", timeout: .milliseconds(300))
            }
            for request in stuck { try worker.enqueue(request) }
            let good = try await WorkerHarness.deliver(
                Self.request("http://127.0.0.1:\(server.port)/hook"), with: worker)
            #expect(good?.state == .delivered)
            for request in stuck {
                let attempted = try await WorkerHarness.waitForDelivery(
                    worker.database, eventID: request.eventID
                ) { $0.attempts >= 1 }
                #expect(attempted?.state == .pending)
                #expect(attempted?.lastError?.hasSuffix("timed out") == true, "\(attempted?.lastError ?? "")")
            }
        }
    }

    @Test("graceful shutdown with attempts stuck in a TLS handshake: run() still returns within the group's budget")
    func shutdownWithSilentTLSListener() async throws {
        let silent = try SilentListener()
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let worker = OutboxWorker(
                database: database, configuration: .init(userAgent: "tagrouter/test"), logger: TestEnvironment.logger)
            var configuration = ServiceGroupConfiguration(
                services: [.init(service: worker)], logger: TestEnvironment.logger)
            configuration.maximumGracefulShutdownDuration = .milliseconds(500)
            let group = ServiceGroup(configuration: configuration)
            let request = Self.request("https://localhost:\(silent.port)/hook", timeout: .seconds(600))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try worker.enqueue(request)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try database.deliveries(eventID: request.eventID).map(\.state) == [.pending])
        }
    }

    @Test("proxies: the rule's proxy, HTTP_PROXY from the environment, NO_PROXY and proxy: none, through tinyproxy")
    func proxies() async throws {
        let proxy = try await TinyProxy.start()
        defer { proxy.stop() }
        let server = try await HTTPTestServer.start { _, _ in .status(200) }
        defer { Task { try? await server.stop() } }
        let url = "http://127.0.0.1:\(server.port)/hook"
        let target = "127.0.0.1:\(server.port)"
        func proxiedConnections() -> Int { proxy.log.components(separatedBy: target).count - 1 }
        // The rule names the proxy.
        try await WorkerHarness.run { worker, _ in
            let viaRule = WebhookTransport(proxy: .server("http://127.0.0.1:\(proxy.port)"))
            let delivery = try await WorkerHarness.deliver(Self.request(url, transport: viaRule), with: worker)
            #expect(delivery?.state == .delivered, "\(delivery?.lastError ?? "")")
        }
        let afterRule = proxiedConnections()
        #expect(afterRule >= 1, "\(proxy.log)")
        // The environment names it; `proxy: none` and NO_PROXY go around it.
        try await WorkerHarness.run(environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)"]) { worker, _ in
            let delivery = try await WorkerHarness.deliver(Self.request(url), with: worker)
            #expect(delivery?.state == .delivered, "\(delivery?.lastError ?? "")")
        }
        let afterEnvironment = proxiedConnections()
        #expect(afterEnvironment > afterRule, "\(proxy.log)")
        try await WorkerHarness.run(environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)"]) { worker, _ in
            let direct = try await WorkerHarness.deliver(
                Self.request(url, transport: WebhookTransport(proxy: .direct)), with: worker)
            #expect(direct?.state == .delivered)
        }
        try await WorkerHarness.run(
            environment: ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "localhost,127.0.0.1"]
        ) { worker, _ in
            let excepted = try await WorkerHarness.deliver(Self.request(url), with: worker)
            #expect(excepted?.state == .delivered)
        }
        #expect(proxiedConnections() == afterEnvironment, "\(proxy.log)")
        #expect(server.requests.count == 4)
    }
}
