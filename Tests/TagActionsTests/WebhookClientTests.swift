import Foundation
import HTTPTestSupport
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

@testable import TagActions

@Suite("The webhook HTTP client against a real HTTP server")
struct WebhookClientTests {
    /// A POST of `body` to `url`, as the sender builds it.
    static func post(_ url: String, body: [UInt8] = Array("{}".utf8)) throws -> WebhookClient.Request {
        try #require(WebhookClient.Request(method: .POST, url: url, headers: ["X-Test": "1"], body: body))
    }

    static var deadline: NIODeadline { .now() + .seconds(5) }

    @Test("deliveries to one receiver share a kept-alive connection, one after another")
    func keptAliveConnectionIsReused() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(204) }
        defer { Task { try? await server.stop() } }
        let eventIDs = (0..<3).map { _ in EventID.make() }
        try await WorkerHarness.run { worker, _ in
            for eventID in eventIDs {
                try worker.enqueue(
                    WebhookRequest(url: "http://127.0.0.1:\(server.port)/hook", eventID: eventID, rule: "r"))
                let record = try await WorkerHarness.waitUntilSettled(worker.outbox, eventID: eventID)
                #expect(record?.state == "delivered")
                #expect(record?.attempts == 1)
            }
        }
        let requests = server.requests
        #expect(requests.map { $0.header("X-TagRouter-Event") } == eventIDs)
        #expect(requests.map(\.connection) == [0, 0, 0])
    }

    @Test("a kept-alive connection closed as the request arrives: sent again at once, on a new connection")
    func droppedKeptAliveConnectionIsRetriedOnce() async throws {
        let server = try await HTTPTestServer.start { _, index in index == 1 ? .close : .status(200) }
        defer { Task { try? await server.stop() } }
        let client = WebhookClient()
        let url = "http://127.0.0.1:\(server.port)/hook"
        #expect(try await client.execute(Self.post(url), deadline: Self.deadline).status == .ok)
        #expect(try await client.execute(Self.post(url), deadline: Self.deadline).status == .ok)
        #expect(server.requests.map(\.connection) == [0, 0, 1])
        // A new connection that closes without an answer is an error: only a reused one is tried again.
        let silent = try await HTTPTestServer.start { _, _ in .close }
        defer { Task { try? await silent.stop() } }
        let error = await #expect(throws: WebhookClientError.self) {
            try await client.execute(Self.post("http://127.0.0.1:\(silent.port)/"), deadline: Self.deadline)
        }
        #expect(error?.kind == .closedBeforeAnswer)
        #expect(silent.requests.count == 1)
        await client.shutdown()
    }

    @Test("an answer with Connection: close is read and its connection is not used again")
    func connectionCloseIsHonoured() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(200, headers: [("Connection", "close")]) }
        defer { Task { try? await server.stop() } }
        let client = WebhookClient()
        let url = "http://127.0.0.1:\(server.port)/"
        for _ in 0..<2 {
            #expect(try await client.execute(Self.post(url), deadline: Self.deadline).status == .ok)
        }
        #expect(server.requests.map(\.connection) == [0, 1])
        await client.shutdown()
    }

    @Test("the request line, Host, Content-Length and a GET without body are what the server reads")
    func requestOnTheWire() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(404, body: Array("no such hook".utf8)) }
        defer { Task { try? await server.stop() } }
        let client = WebhookClient()
        let response = try await client.execute(
            Self.post("http://127.0.0.1:\(server.port)/a%20b/c?x=%3B&y", body: [1, 2, 3]), deadline: Self.deadline)
        #expect(response.status == .notFound)
        #expect(response.snippet == Array("no such hook".utf8))
        let get = try #require(
            WebhookClient.Request(method: .GET, url: "http://127.0.0.1:\(server.port)", headers: [:], body: nil))
        _ = try await client.execute(get, deadline: Self.deadline)
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
        await client.shutdown()
    }

    @Test("https: the server name is sent and the certificate verified against the trusted roots")
    func httpsIsVerified() async throws {
        let authority = try TestCertificateAuthority.make()
        defer { authority.remove() }
        let server = try await HTTPTestServer.start(tls: try authority.issue(for: "localhost")) { _, _ in
            .status(201)
        }
        defer { Task { try? await server.stop() } }
        let wrongName = try await HTTPTestServer.start(tls: try authority.issue(for: "other.example")) { _, _ in
            .status(201)
        }
        defer { Task { try? await wrongName.stop() } }
        var configuration = WebhookClient.Configuration()
        configuration.tls.additionalTrustRoots = [.file(authority.certificate)]
        let client = WebhookClient(configuration: configuration)
        let response = try await client.execute(
            Self.post("https://localhost:\(server.port)/hook"), deadline: Self.deadline)
        #expect(response.status == .created)
        #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
        let error = await #expect(throws: WebhookClientError.self) {
            try await client.execute(Self.post("https://localhost:\(wrongName.port)/hook"), deadline: Self.deadline)
        }
        #expect(error?.kind == .tlsFailed)
        #expect("\(error!)".contains("certificate"), "\(error!)")
        #expect(wrongName.requests.isEmpty)
        // Without the test CA the system's trust store is used, and it does not know this authority.
        let untrusting = WebhookClient()
        let untrusted = await #expect(throws: WebhookClientError.self) {
            try await untrusting.execute(Self.post("https://localhost:\(server.port)/hook"), deadline: Self.deadline)
        }
        #expect(untrusted?.kind == .tlsFailed)
        #expect(server.requests.count == 1)
        await client.shutdown()
        await untrusting.shutdown()
    }

    @Test("cancelling the sending task ends the exchange before its deadline, without sending it again")
    func cancellationEndsTheExchange() async throws {
        let server = try await HTTPTestServer.start { _, index in index == 0 ? .status(200) : .hang }
        defer { Task { try? await server.stop() } }
        let client = WebhookClient()
        let url = "http://127.0.0.1:\(server.port)/"
        _ = try await client.execute(Self.post(url), deadline: Self.deadline)
        // The second request goes out on the kept-alive connection and is never answered.
        let sending = Task { try await client.execute(Self.post(url), deadline: .now() + .seconds(60)) }
        _ = try await server.waitForRequests(2)
        sending.cancel()
        let error = await #expect(throws: WebhookClientError.self) { try await sending.value }
        #expect(error?.kind != .timedOut)
        #expect(server.requests.count == 2)
        await client.shutdown()
    }

    @Test("after shutdown, requests fail at once without reaching the server")
    func shutdownClosesConnections() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(200) }
        defer { Task { try? await server.stop() } }
        let client = WebhookClient()
        let url = "http://127.0.0.1:\(server.port)/"
        _ = try await client.execute(Self.post(url), deadline: Self.deadline)
        await client.shutdown()
        let error = await #expect(throws: WebhookClientError.self) {
            try await client.execute(Self.post(url), deadline: Self.deadline)
        }
        #expect(error?.kind == .shutDown)
        #expect(server.requests.count == 1)
    }
}
