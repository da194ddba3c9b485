import ServiceLifecycle

/// The one way a service does something every so often (docs/development.md, "Conventions"): the work at once,
/// then again after each interval, until graceful shutdown or cancellation, which end a pause at once instead of
/// at the next tick.
public enum Periodic {
    /// Runs `body` at once and then every `interval` (counted from the end of the previous run) until graceful
    /// shutdown or cancellation; returns as soon as either comes during a pause, or after the run in progress.
    /// - Parameters:
    ///   - interval: the pause between two runs.
    ///   - body: the work; it runs in the caller's task, so it may keep state in the caller's variables.
    public static func every(_ interval: Duration, _ body: () async -> Void) async {
        guard !isStopping else { return }
        repeat {
            await body()
        } while await pause(for: interval)
    }

    /// Waits for `duration` unless graceful shutdown or cancellation come first.
    /// - Parameter duration: how long to wait.
    /// - Returns: `true` after the whole duration; `false` as soon as graceful shutdown or cancellation came (or had
    ///   come already).
    public static func pause(for duration: Duration) async -> Bool {
        guard !isStopping else { return false }
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
        return !isStopping
    }

    /// Waits until `wakeup` is signaled, unless graceful shutdown or cancellation come first.
    /// - Parameter wakeup: what to wait for.
    /// - Returns: `true` once signaled; `false` as soon as graceful shutdown or cancellation came.
    public static func wait(for wakeup: Wakeup) async -> Bool {
        guard !isStopping else { return false }
        await cancelWhenGracefulShutdown { await wakeup.wait(for: nil) }
        return !isStopping
    }

    /// Whether the current task is to stop: cancelled, or in graceful shutdown.
    public static var isStopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }
}
