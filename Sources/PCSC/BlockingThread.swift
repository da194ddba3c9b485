import Foundation

/// A dedicated thread that runs blocking pcsc-lite calls one after another, so they never occupy a thread of
/// Swift's cooperative pool.
///
/// It is also a task executor: code run with it as the preferred executor (``PCSCContext/withThread(_:)``)
/// executes on this thread, and then ``run(_:)`` calls pcsc-lite directly instead of hopping to the thread and
/// back for every command. The thread lives until the owner is deinitialised; jobs still queued are run first.
///
/// A context has one of its own unless it is given one (``PCSCContext/establish(logger:thread:)``): the router's
/// card reader keeps one per reader for all the contexts it establishes there over time, and the router's watcher
/// one it waits on. A job queued behind a blocking wait runs when the wait ends: nothing else is queued on the
/// watcher's thread.
public final class BlockingThread: TaskExecutor, Sendable {
    private let queue: JobQueue

    /// Starts the thread.
    /// - Parameter name: the thread name, seen in debuggers and `top -H`.
    public init(name: String) {
        let queue = JobQueue()
        self.queue = queue
        let thread = Thread { queue.runUntilStopped() }
        thread.name = name
        thread.start()
    }

    deinit {
        queue.stop()
    }

    /// Runs `body` on the thread and returns its result; directly when already on the thread.
    /// - Parameter body: the blocking work.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if queue.isCurrentThread {
            return try body()
        }
        return try await runAfterQueuedJobs(body)
    }

    /// Runs `body` on the thread once the jobs queued before it have run, and returns its result; from the thread
    /// itself too, where ``run(_:)`` would run it at once, ahead of them. Releasing a context this way lets the
    /// disconnects still queued for its cards go first (``CardConnection/disconnectAfterCurrentJob()``).
    /// - Parameter body: the blocking work.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw.
    func runAfterQueuedJobs<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.enqueue { continuation.resume(with: Result(catching: body)) }
        }
    }

    /// Queues `body` without waiting for it (used to release handles from `deinit`).
    func post(_ body: @escaping @Sendable () -> Void) {
        queue.enqueue(body)
    }

    /// Runs a task's job on the thread (the `TaskExecutor` requirement).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.enqueue { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The jobs waiting for a ``BlockingThread``.
///
/// `@unchecked Sendable`: every stored property is read and written only while `condition` is locked.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var isStopped = false
    private var worker: pthread_t?

    /// Whether the caller runs on the queue's thread.
    var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let worker else { return false }
        return pthread_equal(worker, pthread_self()) != 0
    }

    func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        isStopped = true
        condition.signal()
        condition.unlock()
    }

    func runUntilStopped() {
        condition.lock()
        worker = pthread_self()
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty && !isStopped {
                condition.wait()
            }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
