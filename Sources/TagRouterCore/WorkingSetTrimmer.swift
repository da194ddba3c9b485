public import Logging
public import ServiceLifecycle

/// Gives back the read-only pages of the executable and the shared libraries that an idle router does not use
/// (``WorkingSet``; docs/development.md, "Footprint"): those start-up touched, once the router has started
/// (about 12 MiB of resident memory), and those taps mapped back, once the router has been quiet for a while.
/// Code needed again is mapped again from the page cache at its next use (the first tap after a quiet period
/// pays that: a few hundred microseconds).
public struct WorkingSetTrimmer: Service, CustomStringConvertible {
    let delay: Duration
    let interval: Duration
    let logger: Logger

    /// Creates the trimmer.
    /// - Parameters:
    ///   - delay: how long after the service starts the start-up pages are released: start-up (the first
    ///     reader watched, the state database opened, the first outbox count) is over by then.
    ///   - interval: how often the resident set is looked at afterwards; pages are released again when it grew
    ///     by 2 MiB since the last release and did not change over the last interval.
    ///   - logger: where the released amounts are logged (debug level).
    public init(delay: Duration = .seconds(10), interval: Duration = .seconds(120), logger: Logger) {
        self.delay = delay
        self.interval = interval
        self.logger = logger
    }

    /// Releases after `delay`, then checks every `interval` until graceful shutdown; cancellation ends it
    /// quietly. Where `/proc` cannot tell (not Linux) it only waits for graceful shutdown.
    public func run() async {
        guard await pause(delay), let released = WorkingSet.releaseFilePages(),
            let resident = WorkingSet.residentKiB()
        else {
            try? await gracefulShutdown()
            return
        }
        logger.debug("memory.start_up_pages_released", metadata: ["memory.kib": "\(released)"])
        var schedule = Schedule(releasedTo: resident)
        while await pause(interval) {
            guard let now = WorkingSet.residentKiB(), schedule.checked(resident: now) else { continue }
            let released = WorkingSet.releaseFilePages() ?? 0
            schedule.released(resident: WorkingSet.residentKiB() ?? now)
            logger.debug("memory.idle_pages_released", metadata: ["memory.kib": "\(released)"])
        }
    }

    /// Sleeps; `false` once the group shuts down or cancels.
    private func pause(_ duration: Duration) async -> Bool {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
        return !Task.isCancelled && !Task.isShuttingDownGracefully
    }

    /// The service's name in lifecycle logs.
    public var description: String { "WorkingSetTrimmer" }
}
