/// Runs `work` until it returns or `timeout` has passed, whichever comes first, and cancels the other: the one
/// way TagRouter races work against a clock. `work` must end when its task is cancelled, since the race is over
/// only when both have ended.
/// - Parameters:
///   - timeout: how long `work` may take.
///   - work: the work.
/// - Returns: what `work` returned; nil when the time ran out first.
/// - Throws: what `work` threw, when it threw before the time ran out; `CancellationError` when the calling task
///   was cancelled first.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, _ work: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

/// Runs `work` until it returns or `timeout` has passed, whichever comes first, and cancels the other.
/// - Parameters:
///   - timeout: how long `work` may take.
///   - work: the work.
/// - Returns: what `work` returned; nil when the time ran out first, or the calling task was cancelled first.
public func withDeadline<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await work() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return await group.next() ?? nil
    }
}
