import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A minimal webhook receiver on 127.0.0.1: answers every request 204 over keep-alive and counts them.
final class Receiver: Sendable {
    let port: Int
    let count: Atomic<Int>
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
        self.count = Atomic(0)
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
        counter.receiver.withLock { $0 }?.count.add(1, ordering: .relaxed)
        let head = HTTPResponseHead(version: .http1_1, status: .noContent, headers: ["Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
