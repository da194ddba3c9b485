import Dispatch

/// A box the waiting thread reads after the task signalled.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var value: Result<T, any Error>?
}

/// Runs an async operation to completion from libFuzzer's synchronous entry point.
///
/// The fuzzed card channels never suspend, so with `Task.immediate` the whole operation normally runs on the
/// calling thread before `Task.immediate` returns; should it suspend anyway, the semaphore waits for the rest.
/// - Parameter operation: the work.
/// - Returns: what the operation returned or threw.
public func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.immediate {
        do { box.value = .success(try await operation()) } catch { box.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return box.value!
}
