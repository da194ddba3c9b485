import Foundation

/// `tagrouter run` as a child process: started with its own rules and state directory, its log read back, sent
/// signals, and always stopped.
public final class RouterProcess: Sendable {

    /// The directory holding the log and whatever the test puts there (rules, outputs).
    public let directory: String
    private let process: ChildProcess
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
        process = try ChildProcess.spawn(
            try TagRouterBinary.path(), ["run"] + arguments, environment: environment, outputPath: logPath)
    }

    deinit {
        process.killAndReap()
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
        process.signal(signal)
    }

    /// Sends SIGTERM and waits for the exit.
    /// - Parameter timeout: after this the process is killed and an error thrown.
    /// - Returns: the exit status and how long the exit took.
    /// - Throws: ``HarnessError`` when it did not exit in time.
    @discardableResult
    public func terminate(timeout: Duration = .seconds(5)) async throws -> (status: Int32, took: Duration) {
        let start = ContinuousClock.now
        signal(SIGTERM)
        guard let status = await process.wait(upTo: timeout) else {
            process.killAndReap()
            throw HarnessError("the router did not exit within \(timeout) of SIGTERM:\n\(log)")
        }
        return (status, ContinuousClock.now - start)
    }
}
