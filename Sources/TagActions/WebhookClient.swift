import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The HTTP/1.1 client webhooks are sent with: SwiftNIO's codecs (NIOHTTP1) and TLS (NIOSSL) on kept-alive
/// connections, one exchange at a time on each, no redirects followed.
///
/// It replaces AsyncHTTPClient for webhooks (association files still use it) because a tap's first attempt
/// starts on the card thread, and everything before the hop to the event loop is spent while the request has
/// not left: here that is a lock, a lookup and one `write` to the channel, where AsyncHTTPClient's request
/// preparation, deadline timer and pool state machine took about 150 µs (docs/development.md, "Where the time
/// goes").
///
/// A request that meets a kept-alive connection the server has just closed (nothing of an answer arrived) is
/// sent again once on a new connection: receivers tell such repeats apart by `X-TagRouter-Event`
/// (docs/rules.md, "`webhook`: HTTP requests").
final class WebhookClient: Sendable {
    /// Where a connection goes: requests to the same origin share kept-alive connections.
    struct Origin: Hashable, Sendable {
        var isTLS: Bool
        var host: String
        var port: Int
    }

    /// A request, ready for the wire but for the connection.
    struct Request: Sendable {
        var origin: Origin
        var head: HTTPRequestHead
        var body: ByteBuffer?
    }

    /// The client's limits.
    struct Configuration: Sendable {
        /// The longest a connection attempt may take (the request's own deadline may cut it shorter).
        var connectTimeout: TimeAmount = .seconds(10)
        /// How long an unused connection is kept open.
        var idleTimeout: TimeAmount = .seconds(60)
        /// How many unused connections are kept per origin.
        var idleConnectionsPerOrigin = 16
        /// TLS for `https` URLs: the system's trust store unless a test adds roots.
        var tls: TLSConfiguration = .makeClientConfiguration()
    }

    private struct Pool {
        var idle: [Origin: [any Channel]] = [:]
        var open: [ObjectIdentifier: any Channel] = [:]
        var isShutDown = false
        var sslContext: NIOSSLContext?
    }

    private let group: any EventLoopGroup
    private let configuration: Configuration
    private let pool = Mutex(Pool())

    init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, configuration: Configuration = .init()) {
        self.group = group
        self.configuration = configuration
    }

    /// Sends `request` and reads its answer, all before `deadline`. Cancelling the task closes the connection and
    /// ends the exchange.
    /// - Throws: ``WebhookClientError``.
    func execute(_ request: Request, deadline: NIODeadline) async throws(WebhookClientError) -> WebhookResponse {
        var reuse = true
        while true {
            let (channel, wasIdle) = try await connection(to: request.origin, deadline: deadline, reuse: reuse)
            let promise = channel.eventLoop.makePromise(of: WebhookResponse.self)
            let exchange = WebhookExchange(head: request.head, body: request.body, deadline: deadline, promise: promise)
            do {
                // Cancelled (the worker stops): closing the connection ends the exchange at once.
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        // One task on the event loop: it takes the answer's callback there (awaiting the future
                        // from this thread would queue a second task to register it) and writes the request.
                        channel.eventLoop.execute {
                            promise.futureResult.whenComplete { continuation.resume(with: $0) }
                            // The handler completes `written` as it takes the exchange; a channel that closed
                            // before that has no handlers left, and the write fails instead: the exchange fails
                            // with it, never left pending.
                            let written = channel.eventLoop.makePromise(of: Void.self)
                            written.futureResult.whenFailure { error in
                                promise.fail(WebhookClientError(.closedBeforeAnswer, "\(error)"))
                            }
                            channel.writeAndFlush(exchange, promise: written)
                        }
                    }
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch let error as WebhookClientError where wasIdle && error.isBeforeAnswer && !Task.isCancelled {
                reuse = false
            } catch let error as WebhookClientError {
                throw error
            } catch {
                throw WebhookClientError(.closedBeforeAnswer, "\(error)")
            }
        }
    }

    /// Closes every connection; later requests fail with ``WebhookClientError/Kind/shutDown``.
    func shutdown() async {
        let channels = pool.withLock { pool in
            pool.isShutDown = true
            pool.idle = [:]
            return Array(pool.open.values)
        }
        for channel in channels {
            try? await channel.close()
        }
    }

    /// An idle connection to `origin` if `reuse` and there is one, else a new one.
    /// - Returns: the channel and whether it had served a request before.
    private func connection(
        to origin: Origin,
        deadline: NIODeadline,
        reuse: Bool
    ) async throws(WebhookClientError) -> (any Channel, Bool) {
        let (idle, sslContext) = try pool.withLock {
            pool throws(WebhookClientError) -> ((any Channel)?, NIOSSLContext?) in
            guard !pool.isShutDown else { throw WebhookClientError(.shutDown) }
            while reuse, let channel = pool.idle[origin]?.popLast() {
                if channel.isActive { return (channel, pool.sslContext) }
            }
            return (nil, pool.sslContext)
        }
        if let idle { return (idle, true) }
        let remaining = deadline - .now()
        guard remaining > .zero else { throw WebhookClientError(.timedOut) }
        var context: NIOSSLContext? = nil
        if origin.isTLS {
            if let sslContext { context = sslContext } else { context = try makeSSLContext() }
        }
        let serverName = origin.host.isIPAddress ? nil : origin.host
        let idleTimeout = configuration.idleTimeout
        let becameIdle: @Sendable (any Channel) -> Void = { [weak self] channel in self?.release(channel, to: origin) }
        let eventLoop = group.next()
        let handshake = context == nil ? nil : eventLoop.makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(min(configuration.connectTimeout, remaining))
            .channelInitializer { [context] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: context, serverHostname: serverName)
                        )
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        WebhookConnectionHandler(
                            idleTimeout: idleTimeout, handshake: handshake, becameIdle: becameIdle)
                    )
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: origin.host, port: origin.port).get()
        } catch ChannelError.connectTimeout {
            throw WebhookClientError(.timedOut)
        } catch {
            handshake?.fail(error)
            throw WebhookClientError(.connectFailed, Self.describe(connectError: error))
        }
        let id = ObjectIdentifier(channel)
        let isShutDown = pool.withLock { pool in
            if !pool.isShutDown { pool.open[id] = channel }
            return pool.isShutDown
        }
        if isShutDown {
            channel.close(promise: nil)
            throw WebhookClientError(.shutDown)
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.pool.withLock { pool in
                pool.open[id] = nil
                pool.idle[origin]?.removeAll { $0 === channel }
            }
        }
        if let handshake {
            do {
                try await handshake.futureResult.get()
            } catch {
                channel.close(promise: nil)
                throw error as? WebhookClientError ?? WebhookClientError(.tlsFailed, "\(error)")
            }
        }
        return (channel, false)
    }

    /// Keeps a connection that has read its answer for the next request, or closes it if enough are kept.
    private func release(_ channel: any Channel, to origin: Origin) {
        let keep = pool.withLock { pool in
            guard !pool.isShutDown, channel.isActive,
                pool.idle[origin, default: []].count < configuration.idleConnectionsPerOrigin
            else { return false }
            pool.idle[origin, default: []].append(channel)
            return true
        }
        if !keep { channel.close(promise: nil) }
    }

    private func makeSSLContext() throws(WebhookClientError) -> NIOSSLContext {
        do {
            let context = try NIOSSLContext(configuration: configuration.tls)
            pool.withLock { $0.sslContext = $0.sslContext ?? context }
            return context
        } catch {
            throw WebhookClientError(.connectFailed, "TLS set-up failed: \(error)")
        }
    }

    /// The reason a connection failed, without NIO's per-address wrapping.
    static func describe(connectError error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return "\(first.target): \(first.error)" }
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "\(error.host): \(dns)" }
        }
        return "\(error)"
    }
}

extension WebhookClient.Request {
    /// The request for `url`, or nil if it is not an `http` or `https` URL with a host.
    /// - Parameters:
    ///   - method: the method.
    ///   - url: the URL, already percent-encoded (``WebhookRequest/validate()`` checked it).
    ///   - headers: the header fields, without `Host` and `Content-Length`, which this adds.
    ///   - body: the body, if the request has one.
    init?(method: HTTPMethod, url: String, headers: HTTPHeaders, body: [UInt8]?) {
        guard let (origin, target) = WebhookClient.Origin.parse(url) else { return nil }
        self.origin = origin
        head = HTTPRequestHead(version: .http1_1, method: method, uri: target)
        let host = origin.host.contains(":") ? "[\(origin.host)]" : origin.host
        let isDefaultPort = origin.port == (origin.isTLS ? 443 : 80)
        head.headers.add(name: "Host", value: isDefaultPort ? host : "\(host):\(origin.port)")
        head.headers.add(contentsOf: headers)
        if let body {
            head.headers.add(name: "Content-Length", value: String(body.count))
            self.body = ByteBuffer(bytes: body)
        } else {
            self.body = nil
        }
    }
}

extension WebhookClient.Origin {
    /// The origin and the request target (path and query, as written) of an `http` or `https` URL with a host.
    /// ``WebhookRequest/validate()`` refuses a URL this does not accept.
    /// - Parameter url: the URL, already percent-encoded.
    /// - Returns: nil if `url` is not such a URL.
    static func parse(_ url: String) -> (origin: Self, target: String)? {
        if let known = recentlyParsed.withLock({ $0[url] }) { return known }
        let parsed = parseComponents(url)
        recentlyParsed.withLock { recent in
            if recent.count >= recentlyParsedLimit { recent.removeAll(keepingCapacity: true) }
            recent[url] = parsed
        }
        return parsed
    }

    /// The URLs parsed lately and what came of them: a tap's webhook URL is parsed to validate it and again to
    /// send it, and a rule's URL is usually the same tap after tap, where `URLComponents` costs some 10 µs each
    /// time. Emptied when it reaches ``recentlyParsedLimit``.
    private static let recentlyParsed = Mutex<[String: (origin: Self, target: String)?]>([:])
    private static let recentlyParsedLimit = 256

    private static func parseComponents(_ url: String) -> (origin: Self, target: String)? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        let isTLS = scheme == "https"
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        return (Self(isTLS: isTLS, host: host, port: components.port ?? (isTLS ? 443 : 80)), target)
    }
}

extension String {
    /// Whether this is an IPv4 or IPv6 address literal (TLS sends no server name for those).
    fileprivate var isIPAddress: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
