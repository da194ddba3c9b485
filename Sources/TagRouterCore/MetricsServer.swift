public import Logging
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
public import Prometheus
public import ServiceLifecycle

/// Serves the Prometheus exposition of a registry at `GET /metrics` (any other path answers 404).
///
/// A `Service`: it binds when run, answers until graceful shutdown, then closes the listening socket.
public struct MetricsServer: Service, CustomStringConvertible {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let onBound: @Sendable (Int) -> Void

    /// Creates the server; nothing is bound until ``run()``.
    /// - Parameters:
    ///   - host: the address to listen on, such as `127.0.0.1`.
    ///   - port: the port, 0 for any free one.
    ///   - registry: the metrics to expose.
    ///   - logger: where problems are logged.
    ///   - onBound: called with the bound port once listening (useful with port 0).
    public init(
        host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger,
        onBound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.host = host
        self.port = port
        self.registry = registry
        self.logger = logger
        self.onBound = onBound
    }

    /// Listens and answers until graceful shutdown or cancellation.
    /// - Throws: when the address cannot be bound.
    public func run() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        onBound(server.channel.localAddress?.port ?? port)
        logger.info(
            "metrics.listening", metadata: ["metrics.address": "\(host):\(server.channel.localAddress?.port ?? port)"])
        do {
            try await withGracefulShutdownHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            // A client that connects and never asks must not hold up shutdown.
                            group.addTask { await cancelWhenGracefulShutdown { await answer(connection) } }
                        }
                    }
                }
            } onGracefulShutdown: {
                server.channel.close(promise: nil)
            }
        } catch is CancellationError {
            // Cancelled when the group's graceful-shutdown budget ran out: the socket is closed; not a failure.
        }
    }

    private func answer(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var path: String?
                // The connection is closed after the first answer (`executeThenClose`).
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        path = head.method == .GET ? head.uri : nil
                    case .body:
                        continue
                    case .end:
                        let isMetrics = path == "/metrics" || path?.hasPrefix("/metrics?") == true
                        let body = isMetrics ? registry.emitToBuffer() : Array("not found: try /metrics\n".utf8)
                        var headers = HTTPHeaders()
                        headers.add(
                            name: "Content-Type",
                            value: isMetrics ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
                        headers.add(name: "Content-Length", value: String(body.count))
                        // One answer per connection: no idle keep-alive connection can hold up shutdown.
                        headers.add(name: "Connection", value: "close")
                        let head = HTTPResponseHead(
                            version: .http1_1, status: isMetrics ? .ok : .notFound, headers: headers)
                        try await outbound.write(.head(head))
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                        try await outbound.write(.end(nil))
                        return
                    }
                }
            }
        } catch {
            logger.debug("metrics.connection_failed", metadata: ["error": "\(error)"])
        }
    }

    /// The service's name in lifecycle logs.
    public var description: String { "MetricsServer" }
}
