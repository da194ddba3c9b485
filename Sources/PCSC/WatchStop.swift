import Synchronization

/// How ``ReaderWatcher/stop()`` reaches the iterations of a watcher: a flag they check before each wait, and the
/// context they wait on, whose wait `stop()` cancels.
final class WatchStop: Sendable {
    private struct State {
        var isStopped = false
        var context: PCSCContext?
    }

    private let state = Mutex(State())

    /// Whether ``stop()`` was called.
    var isStopped: Bool {
        state.withLock { $0.isStopped }
    }

    /// Sets the flag and cancels the wait in progress, if any.
    func stop() {
        let context = state.withLock { state in
            state.isStopped = true
            return state.context
        }
        context?.cancel()
    }

    /// Records the context an iteration waits on (`nil` once released), so that ``stop()`` can cancel its wait.
    func waits(on context: PCSCContext?) {
        state.withLock { $0.context = context }
    }
}
