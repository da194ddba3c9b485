import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A minimal webhook receiver on 127.0.0.1: answers every request 204 over keep-alive, counts them, and wakes
/// whoever waits for a count as soon as it is reached (no polling beside the path measured).
final class Receiver: Sendable {
    let port: Int
    private let channel: any Channel
    private let state = Mutex(State())

    private struct State {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// How many requests arrived so far.
    var count: Int { state.withLock { $0.count } }

    /// Returns once `count` requests in all have arrived.
    func arrival(of count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state in
                if state.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Counts one request and wakes the waiters whose count it reaches.
    fileprivate func arrived() {
        let woken = state.withLock { state in
            state.count += 1
            let count = state.count
            let woken = state.waiters.filter { $0.count <= count }
            state.waiters.removeAll { $0.count <= count }
            return woken
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    static func start() async throws -> Receiver {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let receiver = Receiver(port: channel.localAddress!.port!, channel: channel)
        counter.receiver.withLock { $0 = receiver }
        return receiver
    }

    func stop() async throws { try await channel.close() }
}

private final class Counter: Sendable {
    let receiver = Mutex<Receiver?>(nil)
}

private final class Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let counter: Counter

    init(counter: Counter) { self.counter = counter }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        counter.receiver.withLock { $0 }?.arrived()
        let head = HTTPResponseHead(version: .http1_1, status: .noContent, headers: ["Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
