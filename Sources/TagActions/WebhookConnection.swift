import NIOCore
import NIOHTTP1
import NIOTLS

/// One request and where its answer goes, handed to a connection's pipeline by ``WebhookClient``.
struct WebhookExchange: Sendable {
    /// The request head, `Host` and `Content-Length` included.
    var head: HTTPRequestHead
    /// The body, if the request has one.
    var body: ByteBuffer?
    /// When the whole exchange (the request sent, the answer read) must be over.
    var deadline: NIODeadline
    /// Completed on the connection's event loop with the answer or a ``WebhookClientError``.
    var promise: EventLoopPromise<WebhookResponse>
}

/// The part of an answer a webhook attempt looks at.
struct WebhookResponse: Sendable {
    /// The status.
    var status: HTTPResponseStatus
    /// The header fields.
    var headers: HTTPHeaders
    /// The body's first ``WebhookConnectionHandler/snippetLength`` bytes, quoted in error messages.
    var snippet: [UInt8]
}

/// Why an exchange failed.
struct WebhookClientError: Error, CustomStringConvertible {
    enum Kind: Sendable {
        /// The deadline passed (connecting, sending or waiting for the answer).
        case timedOut
        /// The connection ended before the first byte of an answer.
        case closedBeforeAnswer
        /// The connection ended in the middle of the answer.
        case closedDuringAnswer
        /// The answer is not HTTP/1.x the decoder accepts, or came without a request.
        case invalidAnswer
        /// No connection could be made.
        case connectFailed
        /// The TLS handshake failed (an untrusted certificate, a name mismatch).
        case tlsFailed
        /// The client was shut down.
        case shutDown
    }

    var kind: Kind
    var detail: String?

    init(_ kind: Kind, _ detail: String? = nil) {
        self.kind = kind
        self.detail = detail
    }

    /// Whether nothing of an answer arrived: on a connection that had already served an exchange, the server may
    /// have closed it as the request left, and the request is sent again on a new connection.
    var isBeforeAnswer: Bool { kind == .closedBeforeAnswer }

    var description: String {
        switch kind {
        case .timedOut: "timed out"
        case .closedBeforeAnswer: "the connection was closed before an answer" + (detail.map { " (\($0))" } ?? "")
        case .closedDuringAnswer: "the connection was closed in the middle of the answer"
        case .invalidAnswer: "the answer is not valid HTTP" + (detail.map { " (\($0))" } ?? "")
        case .connectFailed: "could not connect" + (detail.map { " (\($0))" } ?? "")
        case .tlsFailed: "TLS failed" + (detail.map { ": \($0)" } ?? "")
        case .shutDown: "the router is stopping"
        }
    }
}

/// The last handler of a webhook connection's pipeline, after NIOHTTP1's encoder and decoder (and TLS): it
/// writes one ``WebhookExchange`` at a time, reads its answer (the body up to ``maxBodyRead``), enforces the
/// deadline, and tells ``WebhookClient`` when the connection can serve the next request.
///
/// All of it runs on the connection's event loop.
final class WebhookConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = WebhookExchange
    typealias OutboundOut = HTTPClientRequestPart

    /// How much of an answer's body is read before the connection is given up (and not reused).
    static let maxBodyRead = 64 * 1024
    /// How much of an answer's body is kept for error messages.
    static let snippetLength = 200

    private enum State {
        /// Ready for a request.
        case idle
        /// The request went out, no answer yet.
        case waiting(EventLoopPromise<WebhookResponse>)
        /// The answer's head arrived; its body is being read.
        case receiving(EventLoopPromise<WebhookResponse>, HTTPResponseHead, snippet: [UInt8], total: Int)
        /// Closed or closing: no more requests.
        case closed
    }

    private var state = State.idle
    private var deadline: Scheduled<Void>?
    private var idleClose: Scheduled<Void>?
    private let idleTimeout: TimeAmount
    /// Called on the event loop when an answer was read in full and the connection stays open.
    private let becameIdle: @Sendable (any Channel) -> Void
    /// For TLS: completed when the handshake is done, failed with its error (the client waits for it before the
    /// first request, so that a certificate problem is reported as such).
    private var handshake: EventLoopPromise<Void>?

    init(
        idleTimeout: TimeAmount,
        handshake: EventLoopPromise<Void>? = nil,
        becameIdle: @escaping @Sendable (any Channel) -> Void
    ) {
        self.idleTimeout = idleTimeout
        self.handshake = handshake
        self.becameIdle = becameIdle
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            handshake?.succeed()
            handshake = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        promise?.succeed()
        guard case .idle = state, context.channel.isActive else {
            exchange.promise.fail(WebhookClientError(.closedBeforeAnswer, "it had closed while idle"))
            return
        }
        state = .waiting(exchange.promise)
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let body = exchange.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        // The timers are set once the request is on its way (no answer can be read before this returns). A
        // write that failed has closed the connection and failed the exchange already.
        idleClose?.cancel()
        idleClose = nil
        guard case .waiting = state else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: exchange.deadline) {
            self.fail(WebhookClientError(.timedOut), context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .waiting(let promise)):
            state = .receiving(promise, head, snippet: [], total: 0)
        case (.body(let buffer), .receiving(let promise, let head, var snippet, let total)):
            let total = total + buffer.readableBytes
            if snippet.count < Self.snippetLength {
                snippet += buffer.readableBytesView.prefix(Self.snippetLength - snippet.count)
            }
            state = .receiving(promise, head, snippet: snippet, total: total)
            if total > Self.maxBodyRead {
                finish(context: context, keepAlive: false)
            }
        case (.end, .receiving(_, let head, _, _)):
            finish(context: context, keepAlive: head.isKeepAlive)
        case (_, .closed):
            break
        default:
            // An answer nobody asked for: the connection is out of step.
            fail(WebhookClientError(.invalidAnswer, "an answer came without a request"), context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshake?.fail(WebhookClientError(.closedBeforeAnswer, "during the TLS handshake"))
        handshake = nil
        switch state {
        case .receiving: fail(WebhookClientError(.closedDuringAnswer), context: context)
        default: fail(WebhookClientError(.closedBeforeAnswer), context: context)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let handshake {
            self.handshake = nil
            handshake.fail(WebhookClientError(.tlsFailed, "\(error)"))
        }
        if error is HTTPParserError {
            fail(WebhookClientError(.invalidAnswer, "\(error)"), context: context)
        } else if case .receiving = state {
            fail(WebhookClientError(.closedDuringAnswer, "\(error)"), context: context)
        } else {
            fail(WebhookClientError(.closedBeforeAnswer, "\(error)"), context: context)
        }
    }

    /// The answer was read: completes the exchange and keeps the connection for the next one, or closes it.
    private func finish(context: ChannelHandlerContext, keepAlive: Bool) {
        guard case .receiving(let promise, let head, let snippet, _) = state else { return }
        deadline?.cancel()
        deadline = nil
        if keepAlive {
            state = .idle
            idleClose = context.eventLoop.assumeIsolated().scheduleTask(in: idleTimeout) {
                self.state = .closed
                context.close(promise: nil)
            }
            becameIdle(context.channel)
        } else {
            state = .closed
            context.close(promise: nil)
        }
        promise.succeed(WebhookResponse(status: head.status, headers: head.headers, snippet: snippet))
    }

    /// Fails the exchange in progress, if any, and closes the connection.
    private func fail(_ error: WebhookClientError, context: ChannelHandlerContext) {
        let previous = state
        state = .closed
        deadline?.cancel()
        deadline = nil
        idleClose?.cancel()
        idleClose = nil
        switch previous {
        case .waiting(let promise), .receiving(let promise, _, _, _): promise.fail(error)
        case .idle, .closed: break
        }
        if context.channel.isActive { context.close(promise: nil) }
    }
}
