import Logging
import Synchronization

/// Records the lines a component logs, with when each came, so that a test waits for what happened instead of
/// sleeping for a while.
final class LogRecorder: Sendable {
    /// One logged line.
    struct Entry: Sendable {
        var message: String
        var time: ContinuousClock.Instant
    }

    private let entries = Mutex<[Entry]>([])

    /// A logger whose every line (trace and up) is recorded.
    var logger: Logger {
        var logger = Logger(label: "recorded") { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// The lines whose message is `message`, so far.
    func lines(_ message: String) -> [Entry] { entries.withLock { $0.filter { $0.message == message } } }

    /// Waits until `message` was logged `count` times (polling; 20 s at most).
    @discardableResult
    func wait(for message: String, count: Int = 1) async throws -> [Entry] {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let found = lines(message)
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        return lines(message)
    }

    fileprivate func append(_ message: String) {
        entries.withLock { $0.append(Entry(message: message, time: .now)) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append(event.message.description)
        }
    }
}
