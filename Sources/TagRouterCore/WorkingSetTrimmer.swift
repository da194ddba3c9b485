public import Logging
public import ServiceLifecycle

/// Gives back, once the router has started, the executable's read-only pages that start-up touched and an idle
/// router never needs (``WorkingSet``; docs/development.md, "Footprint"): about 10 MiB of resident memory.
/// Code needed again later is mapped again from the page cache at its next use.
public struct WorkingSetTrimmer: Service, CustomStringConvertible {
    let delay: Duration
    let logger: Logger

    /// Creates the trimmer.
    /// - Parameters:
    ///   - delay: how long after the service starts the pages are released: start-up (the first reader
    ///     watched, the state database opened, the first outbox count) is over by then.
    ///   - logger: where the released amount is logged (debug level).
    public init(delay: Duration = .seconds(10), logger: Logger) {
        self.delay = delay
        self.logger = logger
    }

    /// Waits `delay`, releases the pages, then waits for graceful shutdown; cancellation ends it quietly.
    public func run() async {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
        if Task.isCancelled || Task.isShuttingDownGracefully { return }
        if let released = WorkingSet.releaseExecutablePages() {
            logger.debug("memory.start_up_pages_released", metadata: ["memory.kib": "\(released)"])
        }
        try? await gracefulShutdown()
    }

    /// The service's name in lifecycle logs.
    public var description: String { "WorkingSetTrimmer" }
}
