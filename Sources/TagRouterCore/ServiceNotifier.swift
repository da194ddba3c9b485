import CSystemd
import Synchronization

/// Tells the service manager that the router is ready, alive, and stopping: `sd_notify(3)` through libsystemd.
///
/// The system unit is `Type=notify` with `WatchdogSec=` (contrib/systemd/tagrouter.service): systemd waits for
/// ``ready(status:)`` before it counts the router started, and restarts it when ``alive()`` stops being called
/// for the watchdog's interval. The router calls ``alive()`` after every reader event it handled, heartbeats
/// included, from the loop that handles them (``Router/Configuration/eventHandled``), so a wedged watcher or a
/// wedged loop is caught. Outside systemd (`NOTIFY_SOCKET` unset) every call does nothing.
public final class ServiceNotifier: Sendable {
    /// How often the watchdog is fed at most: a quarter of its interval (`sd_watchdog_enabled(3)` advises half;
    /// a quarter leaves room for the up to 2 s between two heartbeats); `nil` when no watchdog is set.
    let pingInterval: Duration?
    private let state = Mutex(State())

    private struct State {
        var isReady = false
        var lastPing: ContinuousClock.Instant?
    }

    /// Reads the watchdog's interval from the environment the service manager set (`WATCHDOG_USEC`,
    /// `WATCHDOG_PID`).
    public init() {
        var microseconds: UInt64 = 0
        pingInterval = sd_watchdog_enabled(0, &microseconds) > 0 ? .microseconds(Int64(microseconds / 4)) : nil
    }

    /// `READY=1` with a status line, once: the rules are loaded and the readers present are watched.
    /// - Parameter status: what `systemctl status` shows.
    public func ready(status: String) {
        let first = state.withLock { state in
            defer { state.isReady = true }
            return !state.isReady
        }
        if first { notify("READY=1\nSTATUS=\(status)") }
    }

    /// `WATCHDOG=1`, at most once per quarter of the watchdog's interval; nothing without a watchdog, and nothing
    /// before ``ready(status:)`` (until then the unit's start timeout applies, not the watchdog).
    public func alive() {
        guard let pingInterval else { return }
        let now = ContinuousClock.now
        let due = state.withLock { state in
            guard state.isReady, state.lastPing.map({ now - $0 >= pingInterval }) ?? true else { return false }
            state.lastPing = now
            return true
        }
        if due { notify("WATCHDOG=1") }
    }

    /// `STOPPING=1`: graceful shutdown began.
    public func stopping() {
        notify("STOPPING=1\nSTATUS=stopping")
    }

    private func notify(_ text: String) {
        // The return value says whether a socket was set and reached; the router runs the same either way.
        _ = sd_notify(0, text)
    }
}
