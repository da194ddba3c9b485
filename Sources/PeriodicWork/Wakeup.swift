import Deadline
import Synchronization

/// A one-waiter doorbell: ``signal()`` wakes the pending ``wait(for:)`` or the next one.
public final class Wakeup: Sendable {
    private struct State {
        var isSignaled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Creates a wakeup, not signaled.
    public init() {}

    /// Rings the bell.
    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.isSignaled = true
            return nil
        }
        waiter?.resume()
    }

    /// Waits for a signal, at most `timeout` if given, or until the task is cancelled.
    public func wait(for timeout: Duration?) async {
        guard let timeout else {
            // No timer to race: the wait needs no task of its own.
            await waitForSignal()
            return
        }
        // Already rung: no task to start and no timer to set.
        let wasSignaled = state.withLock { state in
            defer { state.isSignaled = false }
            return state.isSignaled
        }
        if wasSignaled { return }
        _ = await withDeadline(timeout) { await self.waitForSignal() }
    }

    private func waitForSignal() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isSignaled || Task.isCancelled {
                        state.isSignaled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
