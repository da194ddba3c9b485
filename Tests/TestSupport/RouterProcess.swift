import Foundation

/// `tagrouter run` as a child process: started with its own rules and state directory, its log read back, sent
/// signals, and always stopped.
public final class RouterProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is set once in init and only read afterwards; Process is thread-safe for
    // the calls used here (isRunning, processIdentifier, terminationStatus after exit).

    /// The directory holding the log and whatever the test puts there (rules, outputs).
    public let directory: String
    private let process: Process
    private let logPath: String

    /// Starts `tagrouter run` with `arguments` after `run`.
    /// - Parameters:
    ///   - arguments: the options of `tagrouter run`.
    ///   - environment: the whole environment (with `PCSCLITE_CSOCK_NAME`).
    ///   - directory: where the log goes.
    /// - Throws: ``HarnessError`` when the binary is not built or cannot start.
    public init(arguments: [String], environment: [String: String], directory: String) throws {
        self.directory = directory
        logPath = directory + "/router.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: try TagRouterBinary.path())
        process.arguments = ["run"] + arguments
        process.environment = environment
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Everything the router logged so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// The log lines containing `text`.
    public func lines(containing text: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(text) }
    }

    /// Whether the process still runs.
    public var isRunning: Bool { process.isRunning }

    /// Waits until the log holds `count` lines containing `text`.
    /// - Throws: ``HarnessError`` with the log when they do not appear within `timeout`.
    public func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(15)) async throws {
        let deadline = ContinuousClock.now + timeout
        while lines(containing: text).count < count {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw HarnessError(
                    "the router did not log \(count)× '\(text)' within \(timeout) (running: \(process.isRunning)):\n\(log)"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends a signal.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Sends SIGTERM and waits for the exit.
    /// - Parameter timeout: after this the process is killed and an error thrown.
    /// - Returns: the exit status and how long the exit took.
    /// - Throws: ``HarnessError`` when it did not exit in time.
    @discardableResult
    public func terminate(timeout: Duration = .seconds(5)) async throws -> (status: Int32, took: Duration) {
        let start = ContinuousClock.now
        signal(SIGTERM)
        while process.isRunning && ContinuousClock.now - start < timeout {
            try await Task.sleep(for: .milliseconds(10))
        }
        let took = ContinuousClock.now - start
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw HarnessError("the router did not exit within \(timeout) of SIGTERM:\n\(log)")
        }
        process.waitUntilExit()
        return (process.terminationStatus, took)
    }
}
