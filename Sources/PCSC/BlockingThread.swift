import Foundation

/// A dedicated thread that runs blocking pcsc-lite calls one after another, so they never occupy a thread of
/// Swift's cooperative pool.
///
/// It is also a task executor: code run with it as the preferred executor (``PCSCContext/withThread(_:)``)
/// executes on this thread, and then ``run(_:)`` calls pcsc-lite directly instead of hopping to the thread and
/// back for every command. The thread lives until the owner is deinitialised; jobs still queued are run first.
///
/// A context has one of its own unless it is given one (``PCSCContext/establish(logger:thread:)``): the router's
/// card reader keeps one thread for all the contexts it establishes over time, and handles reader events on it.
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

    /// Runs a blocking wait on the thread that another job may cut short: while `body` runs, the first job
    /// queued behind it calls `interrupt`, which must make `body` return soon (`SCardCancel`). When jobs are
    /// already waiting, `body` is not run and the result is `nil`: the caller lets them run first
    /// (`Task.yield()` on the thread) and calls again.
    ///
    /// This lets the router watch pcscd on the thread its taps run on (``ReaderWatcher``'s `thread`): a card's
    /// event comes back on the thread that reads the card. A job queued in the instant before pcsc-lite starts
    /// the wait can miss the interrupt; it then runs when the wait ends by itself (its time slice, or the next
    /// reader event).
    /// - Parameters:
    ///   - body: the blocking wait.
    ///   - interrupt: ends the wait early; called on the thread that queues the job.
    /// - Returns: what `body` returned, or `nil` when it did not run.
    /// - Throws: what `body` threw.
    func runInterruptibly<T: Sendable>(
        _ body: @escaping @Sendable () throws -> T, interrupt: @escaping @Sendable () -> Void
    ) async throws -> T? {
        try await run { [queue] () throws -> T? in
            guard queue.armInterrupt(interrupt) else { return nil }
            defer { queue.disarmInterrupt() }
            return try body()
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
    private var interrupt: (@Sendable () -> Void)?

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
        let interrupt = self.interrupt
        self.interrupt = nil
        condition.signal()
        condition.unlock()
        interrupt?()
    }

    /// Sets the interrupt of the wait about to run on the thread; `false` (and nothing set) when jobs wait.
    func armInterrupt(_ interrupt: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard jobs.isEmpty else { return false }
        self.interrupt = interrupt
        return true
    }

    /// Clears the interrupt once the wait is over.
    func disarmInterrupt() {
        condition.lock()
        interrupt = nil
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
