import Synchronization

/// The router's side of ``Presentations``: the tasks that carry out its effects. A timer is a task sleeping until its
/// deadline; the later events of one presentation form a chain, each starting once the one before has finished
/// (the tap's actions first). The value decides what happens; this only makes it happen, in that order.
final class PresentationRuns: Sendable {
    private struct State {
        /// The timer tasks set and not yet fired or cancelled, by the value's timer id.
        var timers: [UInt64: Task<Void, Never>] = [:]
        /// The last task of each presentation's chain: the next event waits for it.
        var chains: [String: (token: UInt64, task: Task<Void, Never>)] = [:]
        var nextToken: UInt64 = 0
        var isStopped = false
    }

    private let state = Mutex(State())

    /// Calls `fire` at `deadline` on the continuous clock, unless ``cancelTimer(_:)`` or ``stop()`` comes first.
    func setTimer(_ id: UInt64, at deadline: ContinuousClock.Instant, fire: @escaping @Sendable () -> Void) {
        state.withLock { state in
            guard !state.isStopped else { return }
            state.timers[id] = Task { [weak self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled, self?.state.withLock({ $0.timers.removeValue(forKey: id) }) != nil else {
                    return
                }
                fire()
            }
        }
    }

    /// Cancels a timer that has not fired.
    func cancelTimer(_ id: UInt64) {
        state.withLock { $0.timers.removeValue(forKey: id) }?.cancel()
    }

    /// Appends work to a presentation's chain: it starts once the chain's last task has finished.
    func chain(id: String, _ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let previous = state.chains[id]?.task
            let token = state.nextToken
            state.nextToken += 1
            let task = Task { [weak self] in
                await previous?.value
                await work()
                self?.chainEnded(id: id, token: token)
            }
            state.chains[id] = (token, task)
        }
    }

    private func chainEnded(id: String, token: UInt64) {
        state.withLock { state in
            if state.chains[id]?.token == token { state.chains[id] = nil }
        }
    }

    /// Cancels every timer and waits for the events already started to end; cancelled meanwhile (past the
    /// shutdown budget), it cancels them, which kills their commands as a tap's are.
    func stop() async {
        let running = state.withLock { state in
            state.isStopped = true
            state.timers.values.forEach { $0.cancel() }
            state.timers = [:]
            return state.chains.values.map(\.task)
        }
        await withTaskCancellationHandler {
            for task in running { await task.value }
        } onCancel: {
            running.forEach { $0.cancel() }
        }
    }
}

/// Opens once; every waiter before or after that goes on.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Opens the gate.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
