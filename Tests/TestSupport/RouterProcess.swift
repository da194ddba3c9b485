import Foundation
import Synchronization

/// `tagrouter run` as a child process: started with its own rules and state directory, its log read back, sent
/// signals, and always stopped.
public final class RouterProcess: Sendable {

    /// The directory holding the log and whatever the test puts there (rules, outputs).
    public let directory: String
    private let process: ChildProcess
    private let logPath: String
    /// The complete lines read so far and where reading stopped: each look at the log reads only what was
    /// appended since (a long fault case logs tens of thousands of lines and is polled every 20 ms).
    private let logCache = Mutex<(lines: [String], offset: UInt64, partial: [UInt8])>(([], 0, []))

    /// Starts `tagrouter run` with `arguments` after `run`.
    /// - Parameters:
    ///   - arguments: the options of `tagrouter run`.
    ///   - environment: the whole environment (with `PCSCLITE_CSOCK_NAME`).
    ///   - directory: where the log goes.
    ///   - logName: the log's file name in `directory` (a restarted router gets a log of its own).
    ///   - user: run it as this user and group id, without capabilities (`setpriv`), as the service's own user
    ///     would; nil: as the test.
    /// - Throws: ``HarnessError`` when the binary is not built or cannot start.
    public init(
        arguments: [String], environment: [String: String], directory: String, logName: String = "router.log",
        user: UInt32? = nil
    ) throws {
        self.directory = directory
        logPath = directory + "/" + logName
        let binary = try TagRouterBinary.path()
        if let user {
            // setpriv execs the router: the process id stays the router's.
            process = try ChildProcess.spawn(
                "/usr/bin/setpriv",
                ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--inh-caps=-all", binary, "run"] + arguments,
                environment: environment, outputPath: logPath)
        } else {
            process = try ChildProcess.spawn(binary, ["run"] + arguments, environment: environment, outputPath: logPath)
        }
    }

    deinit {
        process.killAndReap()
    }

    /// Everything the router logged so far.
    public var log: String {
        logLines.joined(separator: "\n")
    }

    /// The complete lines of the log so far.
    public var logLines: [String] {
        logCache.withLock { cache in
            guard let file = FileHandle(forReadingAtPath: logPath) else { return cache.lines }
            defer { try? file.close() }
            guard (try? file.seek(toOffset: cache.offset)) != nil, let data = try? file.readToEnd(), !data.isEmpty
            else {
                return cache.lines
            }
            cache.offset += UInt64(data.count)
            var bytes = cache.partial + Array(data)
            if let last = bytes.lastIndex(of: 0x0A) {
                cache.partial = Array(bytes[(last + 1)...])
                bytes.removeSubrange((last + 1)...)
                cache.lines += bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                }
            } else {
                cache.partial = bytes
            }
            return cache.lines
        }
    }

    /// The log lines containing `text`.
    public func lines(containing text: String) -> [String] {
        logLines.filter { $0.contains(text) }
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

    /// The process id.
    public var pid: Int32 { process.pid }

    /// Kills the router with SIGKILL, as a crash or the OOM killer would, and reaps it.
    public func kill() {
        process.killAndReap()
    }

    /// The router's resident memory in KiB (`VmRSS`), `nil` once it has ended.
    public var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8) else {
            return nil
        }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
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
