import Console
public import Logging
public import Prometheus
public import ServiceLifecycle

/// Serves the Prometheus exposition of a registry at `GET /metrics` (any other path answers 404), on the router's
/// one HTTP server (``Console/HTTPServer``, Hummingbird).
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
        let registry = registry
        let server = HTTPServer.metrics(
            host: host, port: port, exposition: { registry.emitToBuffer() }, logger: logger, onBound: onBound)
        do {
            try await server.run()
        } catch is CancellationError {
            // Cancelled when the group's graceful-shutdown budget ran out: the socket is closed; not a failure.
        }
    }

    /// The service's name in lifecycle logs.
    public var description: String { "MetricsServer" }
}
