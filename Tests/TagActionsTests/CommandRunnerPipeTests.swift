import Foundation
import TagActions
import TestSupport
import Testing

/// How a command's output is read (Sources/TagActions/CommandRunner+Output.swift): the command ends when its
/// process exits, not when its pipes reach end-of-file, everything it wrote before exiting is kept, and no file
/// descriptor outlives a run.
@Suite("CommandRunner: output pipes")
struct CommandRunnerPipeTests {
    /// Whether `pid` is a live process (not gone, not a zombie).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        // The state is the first field after the command name, which is in parentheses.
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// The file descriptors this process has open.
    static func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    @Test("a grandchild that keeps stdout open does not hold the command; what was written before the exit is kept")
    func grandchildHoldingStdout() async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        let result = try await runner.run(
            CommandAction(argv: ["/bin/sh", "-c", "sleep 30 & echo $! >&2; echo done"], timeout: .seconds(60)))
        let pidText = String(decoding: result.standardError, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let grandchild = try #require(Int32(pidText), "stderr was '\(pidText)'")
        defer { kill(grandchild, SIGKILL) }
        #expect(result.termination == .exited(0))
        #expect(!result.timedOut)
        #expect(String(decoding: result.standardOutput, as: UTF8.self) == "done\n")
        // The run returned while the sleep, which holds stdout and stderr open, still runs: it did not wait
        // for their end-of-file (the sleep ends after 30 s, the timeout after 60 s).
        #expect(Self.isAlive(grandchild))
    }

    @Test("output written right before the exit is captured whole, every time")
    func outputBeforeExitIsCapturedWhole() async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        let expected = Array(String(repeating: "0", count: 2999).utf8) + [UInt8(ascii: "7")]
        for _ in 0..<50 {
            let result = try await runner.run(
                CommandAction(argv: ["/bin/sh", "-c", "printf '%03000d' 7; printf '%03000d' 7 >&2; exit 0"]))
            #expect(result.termination == .exited(0))
            #expect(result.standardOutput == expected)
            #expect(result.standardError == expected)
            #expect(!result.isOutputTruncated)
        }
    }

    @Test("a running command whose task is cancelled is torn down and reaped, and the run throws CancellationError")
    func cancelledWhileRunning() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let output = directory + "/record.json"
            let runner = CommandRunner(logger: TestEnvironment.logger)
            let run = Task {
                try await runner.run(
                    CommandAction(
                        argv: [TestEnvironment.argvRecorder],
                        environment: ["ARGV_RECORDER_OUT": output, "RECORDER_SLEEP_MS": "1000000"],
                        timeout: .seconds(600)
                    )
                )
            }
            // The recorder writes its record, then sleeps: once the record is there, the command runs.
            try await waitUntil("the command's record") { FileManager.default.fileExists(atPath: output) }
            let recording = try Recording(path: output)
            run.cancel()
            await #expect(throws: CancellationError.self) { try await run.value }
            #expect(!CommandRunnerLimitsTests.processExists(recording.pid))
            #expect(runner.runningCount == 0)
        }
    }

    @Test("200 commands and 50 failed launches leave the number of open file descriptors unchanged")
    func noDescriptorLeaks() async throws {
        let runner = CommandRunner(logger: TestEnvironment.logger)
        let missing = CommandAction(argv: ["/nonexistent/tagrouter-test-program"])
        let missingOnPath = CommandAction(argv: ["tagrouter-test-program-not-on-path"])
        let command = CommandAction(argv: ["/bin/sh", "-c", "echo out; echo err >&2"])
        func runCommand() async throws {
            let result = try await runner.run(command)
            #expect(result.standardOutput == Array("out\n".utf8))
            #expect(result.standardError == Array("err\n".utf8))
        }
        func failLaunches() async {
            await #expect(throws: ActionError.self) { try await runner.run(missing) }
            await #expect(throws: ActionError.self) { try await runner.run(missingOnPath) }
        }
        // The first runs also open what this process keeps for good (the dispatch and process-monitor threads').
        try await runCommand()
        await failLaunches()
        let before = try Self.openDescriptorCount()
        for index in 0..<200 {
            try await runCommand()
            if index % 8 == 0 { await failLaunches() }
        }
        // Other tests of this process open descriptors meanwhile; a leak of one a run would be 200 or more.
        var after = Int.max
        try await waitUntil("the open descriptors back to \(before) (plus 8 for other tests)", timeout: .seconds(60)) {
            after = try Self.openDescriptorCount()
            return after <= before + 8
        }
        #expect(after <= before + 8, "before: \(before), after: \(after)")
    }
}
