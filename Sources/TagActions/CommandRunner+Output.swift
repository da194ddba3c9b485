import Dispatch
import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Why a command's output is read here and not through Subprocess's `output: .sequence` / `error: .sequence`:
// in swift-subprocess 1.0.2 (Sources/Subprocess/IO/AsyncIO+Unix.swift), every read of a `.sequence` stream
// registers its descriptor with `Registration.register(fileDescriptor:continuation:processIdentifier:)`, which adds
// it to the set in `processIdentifierMap[processIdentifier]`. `Registration.removeRegistration(for:)` takes the
// descriptor out of that set but leaves the emptied set in the map; only `Registration.cancel(processIdentifier:)`
// removes the entry, and `Configuration.run` (Sources/Subprocess/Configuration.swift) calls it (through
// `AsyncIO.cancelAsyncIO(for:)`) only when the process-termination monitor finishes before the body. In the usual
// case (the child exits, its pipes reach end-of-file, the body's reads end first) one `ProcessIdentifier` → empty
// `Set` entry stays behind per command, for as long as the router runs (docs/performance.md, "Memory over many
// taps"). So the runner makes the pipes itself, hands Subprocess their write ends (`.fileDescriptor`), and reads
// the read ends with Dispatch; Subprocess still spawns, tears down and reaps. A swift-subprocess whose
// `removeRegistration(for:)` drops the emptied entry makes `.sequence` usable again.

/// A command's standard output and standard error pipes, read on a queue of their own.
///
/// The read ends keep the first `limit` bytes of each stream (``OutputPrefix``) and read and discard the rest, so a
/// command that writes megabytes never blocks on a full pipe. ``finish(grace:)`` ends the reading: at end-of-file
/// on both, or when the grace period has passed (a background child that inherited the pipes may hold them open for
/// hours), and closes the read ends. Every instance must be finished, even when the command was never started.
final class CommandOutputPipes: @unchecked Sendable {
    /// The write end of the standard output pipe, for the child; Subprocess closes it in this process once the
    /// child is spawned, or once spawning failed (`closeAfterSpawningProcess: true`).
    let standardOutputWriteEnd: CInt
    /// The write end of the standard error pipe, likewise.
    let standardErrorWriteEnd: CInt

    /// One read end and what was kept of it. Touched on `queue` only.
    private final class Reader {
        let descriptor: CInt
        var prefix: OutputPrefix
        var source: (any DispatchSourceRead)?
        var isClosed = false

        init(descriptor: CInt, limit: Int) {
            self.descriptor = descriptor
            self.prefix = OutputPrefix(limit: limit)
        }
    }

    private let queue = DispatchQueue(label: "tagrouter.command-output")
    // The state below is touched on `queue` only.
    private let readers: [Reader]
    private var isReading = false
    private var buffer: UnsafeMutableRawBufferPointer?
    private var graceTimer: (any DispatchSourceTimer)?
    private var finished: CheckedContinuation<(standardOutput: OutputPrefix, standardError: OutputPrefix), Never>?

    /// Bytes read at most per readiness event, so that one busy stream cannot hold the queue.
    private static let bufferSize = 64 * 1024
    private static let readsPerEvent = 16

    /// Creates both pipes, close-on-exec, with non-blocking read ends.
    /// - Parameter limit: how many bytes of each stream to keep.
    /// - Throws: ``ActionError`` (`launchFailed`) when the pipes cannot be created (out of descriptors).
    init(limit: Int, program: String) throws(ActionError) {
        var output: (read: CInt, write: CInt)
        var error: (read: CInt, write: CInt)
        do {
            output = try Self.makePipe()
        } catch let code {
            throw ActionError(.launchFailed, "command '\(program)' could not be started: pipe: \(code)")
        }
        do {
            error = try Self.makePipe()
        } catch let code {
            _ = close(output.read)
            _ = close(output.write)
            throw ActionError(.launchFailed, "command '\(program)' could not be started: pipe: \(code)")
        }
        for descriptor in [output.read, error.read] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        standardOutputWriteEnd = output.write
        standardErrorWriteEnd = error.write
        readers = [Reader(descriptor: output.read, limit: limit), Reader(descriptor: error.read, limit: limit)]
    }

    deinit {
        buffer?.deallocate()
    }

    /// Starts reading both pipes. Call it once the child is spawned (before that, nothing can be read).
    func startReading() {
        queue.async { [self] in
            guard finished == nil, !readers.contains(where: \.isClosed) else { return }
            isReading = true
            buffer = .allocate(byteCount: Self.bufferSize, alignment: 16)
            for reader in readers {
                let source = DispatchSource.makeReadSource(fileDescriptor: reader.descriptor, queue: queue)
                source.setEventHandler { [self] in readAvailable(reader) }
                source.setCancelHandler { [self] in
                    // Dispatch no longer watches the descriptor: it may be closed now, not before.
                    _ = close(reader.descriptor)
                    reader.isClosed = true
                    reader.source = nil
                    finishIfClosed()
                }
                reader.source = source
                source.activate()
            }
        }
    }

    /// Ends the reading and closes the read ends.
    /// - Parameter grace: how long to wait for end-of-file on both pipes before closing them anyway.
    /// - Returns: what was kept of standard output and of standard error.
    func finish(grace: Duration) async -> (standardOutput: OutputPrefix, standardError: OutputPrefix) {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                finished = continuation
                guard isReading else {
                    // Never started: the descriptors were never given to Dispatch.
                    for reader in readers where !reader.isClosed {
                        _ = close(reader.descriptor)
                        reader.isClosed = true
                    }
                    finishIfClosed()
                    return
                }
                if readers.allSatisfy(\.isClosed) {
                    finishIfClosed()
                } else if grace <= .zero {
                    stopReading()
                } else {
                    let timer = DispatchSource.makeTimerSource(queue: queue)
                    timer.schedule(deadline: .now() + grace.dispatchInterval)
                    timer.setEventHandler { [self] in stopReading() }
                    graceTimer = timer
                    timer.activate()
                }
            }
        }
    }

    /// Reads what is there, until the pipe is empty (or `readsPerEvent` reads), and stops at end-of-file.
    private func readAvailable(_ reader: Reader) {
        guard let buffer, !reader.isClosed, let source = reader.source, !source.isCancelled else { return }
        for _ in 0..<Self.readsPerEvent {
            let count = read(reader.descriptor, buffer.baseAddress, buffer.count)
            if count > 0 {
                reader.prefix.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            // End-of-file, or an error that ends the stream all the same.
            source.cancel()
            return
        }
    }

    /// Stops reading: cancels the sources, whose cancellation handlers close the descriptors.
    private func stopReading() {
        for reader in readers { reader.source?.cancel() }
    }

    /// Hands the prefixes to ``finish(grace:)`` once both read ends are closed.
    private func finishIfClosed() {
        guard let finished, readers.allSatisfy(\.isClosed) else { return }
        self.finished = nil
        graceTimer?.cancel()
        graceTimer = nil
        finished.resume(returning: (readers[0].prefix, readers[1].prefix))
    }

    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<CInt>?, CInt) -> CInt

    /// glibc's `pipe2`, which Swift's Glibc module does not declare (it is a GNU extension).
    private static let pipe2: Pipe2? = {
        #if os(Linux)
            // RTLD_DEFAULT: the symbol as the process's libraries resolve it.
            return dlsym(nil, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
        #else
            return nil
        #endif
    }()

    /// A pipe whose two ends are close-on-exec from the start, so that no other child spawned meanwhile inherits
    /// them (where `pipe2` is missing, they are marked right after `pipe`).
    private static func makePipe() throws(Errno) -> (read: CInt, write: CInt) {
        var descriptors: [CInt] = [-1, -1]
        let status: CInt
        if let pipe2 {
            status = pipe2(&descriptors, O_CLOEXEC)
        } else {
            status = pipe(&descriptors)
            if status == 0 {
                for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            }
        }
        guard status == 0 else { throw Errno(rawValue: errno) }
        return (descriptors[0], descriptors[1])
    }
}

/// Waits until a process has exited, without reaping it (Subprocess reaps), or until a deadline.
///
/// On Linux the process's pidfd (``ProcessIdentifier/processDescriptor``) becomes readable when it exits; where
/// there is none, `waitid(..., WNOWAIT)` is polled every 10 ms.
final class ProcessExitWatch: @unchecked Sendable {
    /// How the wait ended.
    enum Outcome: Sendable {
        case exited
        case deadlinePassed
        case cancelled
    }

    private let process: ProcessIdentifier
    private let queue = DispatchQueue(label: "tagrouter.command-exit")
    // The state below is touched on `queue` only.
    private var outcome: Outcome?
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var sources: [any DispatchSourceProtocol] = []
    private var sourcesStillRegistered = 0

    private init(process: ProcessIdentifier) {
        self.process = process
    }

    /// Waits until `process` has exited, `timeout` has passed, or the task is cancelled.
    /// - Parameters:
    ///   - process: the process, still unreaped.
    ///   - timeout: how long to wait at most; `nil` waits for the exit however long it takes.
    /// - Returns: what happened first. Its pidfd is no longer watched when this returns, so it may be closed.
    static func wait(for process: ProcessIdentifier, timeout: Duration?) async -> Outcome {
        let watch = ProcessExitWatch(process: process)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in watch.start(timeout: timeout, continuation) }
        } onCancel: {
            watch.queue.async { watch.end(.cancelled) }
        }
    }

    private func start(timeout: Duration?, _ continuation: CheckedContinuation<Outcome, Never>) {
        queue.async { [self] in
            self.continuation = continuation
            guard outcome == nil else {
                resumeIfDone()
                return
            }
            let exit: any DispatchSourceProtocol
            #if os(Linux)
                let pidfd = process.processDescriptor
            #else
                let pidfd: CInt = -1
            #endif
            if pidfd >= 0 {
                let source = DispatchSource.makeReadSource(fileDescriptor: pidfd, queue: queue)
                source.setEventHandler { [self] in end(.exited) }
                exit = source
            } else {
                let poll = DispatchSource.makeTimerSource(queue: queue)
                poll.schedule(deadline: .now(), repeating: .milliseconds(10))
                poll.setEventHandler { [self] in if hasExited() { end(.exited) } }
                exit = poll
            }
            sources.append(exit)
            if let timeout {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + timeout.dispatchInterval)
                timer.setEventHandler { [self] in end(.deadlinePassed) }
                sources.append(timer)
            }
            for source in sources {
                source.setCancelHandler { [self] in
                    sourcesStillRegistered -= 1
                    resumeIfDone()
                }
                sourcesStillRegistered += 1
                source.activate()
            }
        }
    }

    /// Records the outcome (the first one wins) and cancels the sources.
    private func end(_ outcome: Outcome) {
        guard self.outcome == nil else { return }
        self.outcome = outcome
        for source in sources { source.cancel() }
        resumeIfDone()
    }

    /// Resumes the waiter once there is an outcome and every source's cancellation handler has run.
    private func resumeIfDone() {
        guard let outcome, sourcesStillRegistered == 0, let continuation else { return }
        self.continuation = nil
        sources = []
        continuation.resume(returning: outcome)
    }

    /// Whether the process has exited, asked without reaping it.
    private func hasExited() -> Bool {
        var info = siginfo_t()
        let status = waitid(P_PID, id_t(process.value), &info, WEXITED | WNOHANG | WNOWAIT)
        if status == 0 { return info.si_signo != 0 }
        // ECHILD: not (or no longer) a child to wait for; EINTR: ask again at the next tick.
        return errno == ECHILD
    }
}

extension Duration {
    /// The duration for Dispatch, in nanoseconds (saturating).
    fileprivate var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow || seconds < 0 { return seconds < 0 ? .nanoseconds(0) : .never }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? .never : .nanoseconds(Int(total))
    }
}
