import Foundation
import Synchronization
import TagActions
import Testing

@Suite("CommandRunner: timeouts and concurrency")
struct CommandRunnerLimitsTests {
    /// Whether `pid` still exists (a zombie still has a /proc entry).
    static func processExists(_ pid: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)")
    }

    @Test("sleep 1000 is terminated at the timeout and reaped")
    func sleepIsKilledAndReaped() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let output = directory + "/record.json"
            let runner = CommandRunner(logger: TestEnvironment.logger)
            let result = try await runner.run(
                CommandAction(
                    argv: [TestEnvironment.argvRecorder, "1000"],
                    environment: ["ARGV_RECORDER_OUT": output, "RECORDER_SLEEP_MS": "1000000"],
                    timeout: .milliseconds(500)
                )
            )
            // Ended by the runner's SIGTERM at the timeout, not by itself after 1000 s.
            #expect(result.timedOut)
            #expect(result.termination == .signaled(SIGTERM))
            let recording = try Recording(path: output)
            #expect(!Self.processExists(recording.pid))
        }
    }

    @Test("/bin/sleep 1000 times out the same way")
    func binSleep() async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        let result = try await runner.run(CommandAction(argv: ["sleep", "1000"], timeout: .milliseconds(300)))
        #expect(result.timedOut)
        #expect(result.termination == .signaled(SIGTERM))
    }

    @Test("a process that ignores SIGTERM gets SIGKILL after the grace period")
    func ignoresTerm() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let output = directory + "/record.json"
            let runner = CommandRunner(killGrace: .milliseconds(500), logger: TestEnvironment.logger)
            let result = try await runner.run(
                CommandAction(
                    argv: [TestEnvironment.argvRecorder],
                    environment: [
                        "ARGV_RECORDER_OUT": output, "RECORDER_SLEEP_MS": "1000000", "RECORDER_IGNORE_TERM": "1",
                    ],
                    timeout: .milliseconds(300)
                )
            )
            // It ignored the SIGTERM sent at the timeout; only the SIGKILL sent after the grace period ended it.
            #expect(result.timedOut)
            #expect(result.termination == .signaled(SIGKILL))
            let recording = try Recording(path: output)
            #expect(!Self.processExists(recording.pid))
        }
    }

    @Test("at most `concurrency` commands run at once under 100 simultaneous actions")
    func concurrencyLimitHolds() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let slots = directory + "/slots"
            try FileManager.default.createDirectory(atPath: slots, withIntermediateDirectories: true)
            let runner = CommandRunner(concurrency: 4, queueLimit: 100, logger: TestEnvironment.logger)
            let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await runner.run(
                            CommandAction(
                                argv: [TestEnvironment.argvRecorder],
                                environment: [
                                    "ARGV_RECORDER_OUT": "\(directory)/\(index).json", "RECORDER_SLOT_DIR": slots,
                                    "RECORDER_HOLD_MS": "20",
                                ]
                            )
                        )
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 100)
            #expect(results.allSatisfy { $0.isSuccess })
            let observed = try (0..<100).map { try Recording(path: "\(directory)/\($0).json").concurrent }
            #expect(observed.allSatisfy { $0 >= 1 && $0 <= 4 }, "observed \(observed.max() ?? 0) at once")
            #expect(observed.max()! > 1, "commands never overlapped")
            #expect(runner.droppedCount == 0)
        }
    }

    @Test("overflow beyond the queue is dropped with an error and counted")
    func queueOverflowIsDropped() async throws {
        let runner = CommandRunner(concurrency: 1, queueLimit: 2, logger: TestEnvironment.logger)
        let outcomes = await withTaskGroup(of: Result<CommandResult, ActionError>.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        return .success(try await runner.run(CommandAction(argv: ["sleep", "0.3"])))
                    } catch let error as ActionError {
                        return .failure(error)
                    } catch {
                        return .failure(ActionError(.launchFailed, "\(error)"))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let succeeded = outcomes.filter { if case .success = $0 { true } else { false } }.count
        let dropped = outcomes.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(succeeded == 3)
        #expect(dropped.count == 7)
        #expect(dropped.allSatisfy { $0.code == .queueFull })
        #expect(dropped.first?.description == "command 'sleep' dropped: 1 running and 2 queued")
        #expect(runner.droppedCount == 7)
    }

    @Test("a queued action whose task is cancelled leaves the queue at once")
    func cancelledWhileQueued() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            // The first action says when it has started and runs until the test lets it go: two FIFOs.
            let started = directory + "/started"
            let release = directory + "/release"
            #expect(mkfifo(started, 0o600) == 0 && mkfifo(release, 0o600) == 0)
            let runner = CommandRunner(concurrency: 1, queueLimit: 1, logger: TestEnvironment.logger)
            let firstEnded = Atomic<Bool>(false)
            let first = Task {
                defer { firstEnded.store(true, ordering: .sequentiallyConsistent) }
                return try await runner.run(
                    CommandAction(
                        argv: ["/bin/sh", "-c", #"echo started > "$0"; read line < "$1""#, started, release]))
            }
            let said = await Self.onThread { Self.readLine(from: started) }
            #expect(said == "started")
            // Two more actions: the queue has one place, so exactly one of them waits in it and the other is
            // dropped at once. The first to end is the dropped one; the one left is known to be queued.
            let (ended, end) = AsyncStream.makeStream(of: Int.self)
            let actions = (0..<2).map { index in
                Task {
                    defer { end.yield(index) }
                    return try await runner.run(CommandAction(argv: ["/bin/true"]))
                }
            }
            var endings = ended.makeAsyncIterator()
            let droppedIndex = try #require(await endings.next())
            await #expect(throws: ActionError.self) { try await actions[droppedIndex].value }
            let queued = actions[1 - droppedIndex]
            queued.cancel()
            await #expect(throws: CancellationError.self) { try await queued.value }
            // "At once": it left while the running action still runs, which it does until released below.
            let firstHasEnded = firstEnded.load(ordering: .sequentiallyConsistent)
            #expect(!firstHasEnded)
            // Its queue place is free again: another action can wait and then run.
            async let next = runner.run(CommandAction(argv: ["/bin/true"]))
            await Self.onThread { Self.write("go\n", to: release) }
            let nextResult = try await next
            let firstResult = try await first.value
            #expect(nextResult.isSuccess)
            #expect(firstResult.isSuccess)
            #expect(runner.droppedCount == 1)
        }
    }

    /// Runs blocking work (opening a FIFO waits for the other end) on a thread of its own, off Swift's pool.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    /// The first line written to a FIFO, without its newline.
    static func readLine(from path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init)
    }

    /// Writes text to a FIFO, waiting until its reader opens it.
    static func write(_ text: String, to path: String) {
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.write(Data(text.utf8))
        try? handle.close()
    }
}
