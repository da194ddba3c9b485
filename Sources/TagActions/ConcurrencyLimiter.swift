import Synchronization

/// At most `limit` holders at once, at most `queueLimit` waiting; a waiter that is cancelled leaves the queue.
final class ConcurrencyLimiter: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var dropped = 0
    }

    /// The outcome of trying to get in without waiting.
    private enum Entry {
        case admitted
        case queued
        case rejected
        case cancelled
    }

    let limit: Int
    let queueLimit: Int
    private let state = Mutex(State())

    init(limit: Int, queueLimit: Int) {
        self.limit = max(1, limit)
        self.queueLimit = max(0, queueLimit)
    }

    /// How many acquisitions were rejected because the queue was full.
    var droppedCount: Int { state.withLock { $0.dropped } }

    /// How many holders are running now.
    var runningCount: Int { state.withLock { $0.running } }

    /// Waits for a slot.
    /// - Returns: `false` if the queue was full (counted as dropped).
    /// - Throws: `CancellationError` if the task was cancelled while waiting.
    func acquire() async throws -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        var outcome = Entry.queued
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                outcome = state.withLock { state -> Entry in
                    if Task.isCancelled { return .cancelled }
                    if state.running < limit {
                        state.running += 1
                        return .admitted
                    }
                    if state.waiters.count >= queueLimit {
                        state.dropped += 1
                        return .rejected
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .admitted, .rejected: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        return outcome != .rejected
    }

    /// Gives a slot back, handing it to the oldest waiter if there is one.
    func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiters.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }
}
