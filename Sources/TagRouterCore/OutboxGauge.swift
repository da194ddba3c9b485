import CoreMetrics
public import Logging
import PeriodicWork
public import ServiceLifecycle
public import StateStore

/// Keeps the `tagrouter_outbox_depth{kind=…}` gauges up to date by counting pending deliveries now and then.
public struct OutboxGauge: Service, CustomStringConvertible {
    let outbox: StateDatabase
    let metrics: RouterMetrics
    let interval: Duration
    let logger: Logger

    /// Creates the updater.
    /// - Parameters:
    ///   - outbox: the outbox to count.
    ///   - metrics: holds the gauge.
    ///   - interval: time between counts.
    ///   - logger: where a failing count is logged.
    public init(outbox: StateDatabase, metrics: RouterMetrics, interval: Duration = .seconds(15), logger: Logger) {
        self.outbox = outbox
        self.metrics = metrics
        self.interval = interval
        self.logger = logger
    }

    /// Counts until graceful shutdown or cancellation.
    public func run() async {
        await Periodic.every(interval) {
            do {
                for (kind, depth) in try outbox.pendingCounts() { metrics.outboxDepth(kind: kind.rawValue, depth) }
            } catch {
                logger.warning("outbox.count_failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The service's name in lifecycle logs.
    public var description: String { "OutboxGauge" }
}
