import AsyncHTTPClient
import Deadline
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import StateStore
import Synchronization
import TagRules
import WebhookRetry
import WebhookTarget

/// Sends the attempts of webhook deliveries with AsyncHTTPClient and classifies the answers.
///
/// One client per route (direct, or each proxy in use: usually one client in all), each with a connection pool
/// kept alive between deliveries; redirects are not followed, TLS is 1.2 at least. One deadline, the delivery's
/// timeout, covers connecting, the TLS handshake, the request and the answer. A request that meets a kept-alive
/// connection the server has just closed (nothing of an answer arrived) is sent again once within that deadline:
/// receivers tell such repeats apart by `X-TagRouter-Event` (docs/rules.md, "`webhook`: HTTP requests").
final class WebhookSender: Sendable {
    /// Headers TagRouter always sets itself; a rule's headers of the same name are dropped.
    static let reservedHeaders: Set<String> = [
        "user-agent", "x-tagrouter-event", "x-tagrouter-timestamp", "x-tagrouter-signature", "content-length",
        "transfer-encoding", "host",
    ]
    /// How much of an answer's body is read before the rest is given up.
    static let maxBodyRead = 64 * 1024
    /// The longest a connection may take to be made, TLS handshake included.
    static let connectTimeout: TimeAmount = .seconds(2)
    /// How much of an answer's body is quoted in error messages.
    static let snippetLength = 200

    let userAgent: String
    let connectionsPerHost: Int
    let proxies: WebhookProxy.Environment
    /// The one event loop of every webhook connection. AsyncHTTPClient sets an attempt's deadline on a loop of its
    /// group and sends the request on its connection's loop: with one loop, starting an attempt wakes one thread,
    /// not two (docs/performance.md).
    private let eventLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let clients = Mutex<[WebhookProxy?: HTTPClient]>([:])

    /// Creates a sender; call ``shutdown()`` when done.
    /// - Parameters:
    ///   - userAgent: the `User-Agent` value.
    ///   - connectionsPerHost: connections kept per host.
    ///   - environment: the process environment (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`).
    init(userAgent: String, connectionsPerHost: Int, environment: [String: String]) {
        self.userAgent = userAgent
        self.connectionsPerHost = connectionsPerHost
        self.proxies = WebhookProxy.Environment(environment)
    }

    /// Closes every connection.
    func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
        }
        for client in all { try? await client.shutdown() }
        try? await eventLoop.shutdownGracefully()
    }

    /// The client for a route, made on first use.
    private func client(through proxy: WebhookProxy?) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[proxy] { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
            configuration.connectionPool = .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
            // One connection attempt per request attempt: the outbox's retry policy decides when to try again.
            configuration.connectionPool.retryConnectionEstablishment = false
            // Connecting and the TLS handshake take at most this long, whatever an attempt's own deadline: closing
            // the client waits for connections being made, and the router must stop within its shutdown budget.
            configuration.timeout.connect = Self.connectTimeout
            configuration.httpVersion = .http1Only
            configuration.decompression = .disabled
            configuration.proxy = proxy?.configuration
            // TagRouter sets up no distributed-tracing backend: without a tracer, a request starts no span, which
            // took about 45 µs of a tap's path on the development VM (docs/performance.md).
            configuration.tracing.tracer = nil
            let client = HTTPClient(eventLoopGroup: eventLoop, configuration: configuration)
            clients[proxy] = client
            return client
        }
    }

    /// Makes one attempt. Never throws: every failure is a classified result whose error names the URL.
    func attempt(_ delivery: Delivery) async -> AttemptResult {
        let now = Date()
        let deadline = NIODeadline.now() + .milliseconds(delivery.timeoutMilliseconds)
        // Redacting parses the URL once more: only an error message needs it.
        var shown: String { "\(delivery.method) \(URLRedaction.redacted(delivery.target))" }
        let request: HTTPClientRequest
        let proxy: WebhookProxy?
        do {
            (request, proxy) = try prepare(delivery, now: now)
        } catch {
            return AttemptResult(verdict: .failed, error: "\(shown): \(error)")
        }
        let client = client(through: proxy)
        var resent = false
        while true {
            do {
                let (response, snippet) = try await Self.exchange(request, client: client, deadline: deadline)
                return Self.classify(response, snippet: snippet, shown: shown, now: now)
            } catch let error as HTTPClientError
                where error == .remoteConnectionClosed && !resent && !Task.isCancelled && .now() < deadline
            {
                // A kept-alive connection the receiver closed as the request went out: once more, on a new one.
                resent = true
            } catch {
                return AttemptResult(
                    verdict: Self.canNeverSucceed(error) ? .failed : .retry, error: "\(shown): \(Self.describe(error))")
            }
        }
    }

    /// The request of one attempt, signed with this attempt's timestamp, and the proxy it goes through.
    func prepare(_ delivery: Delivery, now: Date) throws -> (HTTPClientRequest, WebhookProxy?) {
        var request = HTTPClientRequest(url: delivery.target)
        request.method = HTTPMethod(rawValue: delivery.method.rawValue)
        var hasContentType = false
        for header in delivery.headers where !Self.reservedHeaders.contains(header.name.lowercased()) {
            if header.name.lowercased() == "content-type" { hasContentType = true }
            request.headers.add(name: header.name, value: header.value)
        }
        if !hasContentType && !(delivery.body.isEmpty && delivery.method == .get) {
            request.headers.add(name: "Content-Type", value: delivery.contentType)
        }
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "X-TagRouter-Event", value: delivery.eventID)
        if let secret = delivery.secret {
            let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
            request.headers.add(name: "X-TagRouter-Timestamp", value: String(timestamp))
            request.headers.add(
                name: "X-TagRouter-Signature",
                value: WebhookSignature.sign(body: delivery.body, timestamp: timestamp, secret: secret))
        }
        if !delivery.body.isEmpty || delivery.method != .get {
            request.body = .bytes(delivery.body)
        }
        let transport = delivery.transport ?? WebhookTransport()
        request.tlsConfiguration = try Self.tlsConfiguration(transport)
        let proxy: WebhookProxy?
        switch transport.proxy {
        case .direct: proxy = nil
        case .server(let url):
            guard let parsed = WebhookProxy(url: url) else {
                throw WebhookSetupError("proxy '\(URLRedaction.redacted(url))' is not http://host:port")
            }
            proxy = parsed
        case nil:
            proxy = proxies.proxy(for: delivery.target)
        }
        return (request, proxy)
    }

    /// The TLS settings of a webhook with its own trust anchors or client certificate, loaded from their files at
    /// each attempt (a renewed certificate is used at once); nil for the client's (system trust store).
    static func tlsConfiguration(_ transport: WebhookTransport) throws -> TLSConfiguration? {
        guard transport.caFile != nil || transport.certificateFile != nil else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        do {
            if let caFile = transport.caFile {
                let roots = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !roots.isEmpty else {
                    throw WebhookSetupError("tls ca \(caFile): no PEM certificate in the file")
                }
                tls.additionalTrustRoots = [.certificates(roots)]
            }
            if let certificateFile = transport.certificateFile, let keyFile = transport.keyFile {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
            }
        } catch let error as WebhookSetupError {
            throw error
        } catch {
            throw WebhookSetupError("tls files cannot be loaded: \(error)")
        }
        return tls
    }

    /// Sends the request and reads at most ``maxBodyRead`` bytes of the answer, all before `deadline`.
    private static func exchange(
        _ request: HTTPClientRequest, client: HTTPClient, deadline: NIODeadline
    ) async throws -> (HTTPClientResponse, [UInt8]) {
        let response = try await client.execute(request, deadline: deadline)
        // AsyncHTTPClient's deadline ends with the answer's head: the body is read under the same deadline here.
        let left = Duration.nanoseconds(max(0, (deadline - .now()).nanoseconds))
        let read: [UInt8]? = try await withDeadline(left) {
            var snippet: [UInt8] = []
            var total = 0
            for try await chunk in response.body {
                total += chunk.readableBytes
                if snippet.count < snippetLength {
                    snippet += chunk.readableBytesView.prefix(snippetLength - snippet.count)
                }
                if total > maxBodyRead { break }
            }
            return snippet
        }
        guard let snippet = read else { throw HTTPClientError.deadlineExceeded }
        return (response, snippet)
    }

    /// The verdict on an answer.
    private static func classify(
        _ response: HTTPClientResponse, snippet: [UInt8], shown: @autoclosure () -> String, now: Date
    )
        -> AttemptResult
    {
        let status = Int(response.status.code)
        let verdict = AttemptResult.verdict(forStatus: status)
        var result = AttemptResult(verdict: verdict, status: status)
        if verdict != .delivered {
            let text = String(decoding: snippet, as: UTF8.self).filter { !$0.isNewline }
            result.error = "\(shown()): HTTP \(status)" + (text.isEmpty ? "" : ": \(text)")
            if (300...399).contains(status) {
                let location = response.headers.first(name: "Location").map(URLRedaction.redacted) ?? "none"
                result.error! += " (redirects are not followed; Location: \(location))"
            }
        }
        if verdict == .retry, let value = response.headers.first(name: "Retry-After") {
            result.retryAfter = RetryPolicy.parseRetryAfter(value, now: now)
        }
        return result
    }

    /// Whether an error says the request as stored can never be sent (its URL, its headers, its TLS files, the
    /// proxy's refusal of its credentials): the delivery fails at once instead of being retried for a day.
    static func canNeverSucceed(_ error: any Error) -> Bool {
        if error is WebhookSetupError { return true }
        guard let error = error as? HTTPClientError else { return false }
        return neverSucceeding.contains(error.shortDescription)
    }

    private static let neverSucceeding: Set<String> = Set(
        [
            HTTPClientError.invalidURL, .emptyHost, .emptyScheme, .unsupportedScheme(""),
            .proxyAuthenticationRequired, .invalidProxyConfiguration, .invalidHeaderFieldNames([]),
            .invalidHeaderFieldValues([]),
        ].map(\.shortDescription))

    /// A short description of a client error.
    static func describe(_ error: any Error) -> String {
        if let error = error as? NIOSSLError {
            return "TLS handshake failed: \(error)"
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .tlsHandshakeTimeout, .httpProxyHandshakeTimeout:
                return "timed out"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}

/// A webhook whose settings cannot be used (its TLS files, its proxy).
struct WebhookSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
