public import Logging
import Synchronization

/// A log handler that keeps every line in memory, with when it came, for assertions on what a component logs
/// and for waiting until it logged something instead of sleeping.
public struct LogRecorder: LogHandler {
    /// One logged line.
    public struct Line: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
        public var time: ContinuousClock.Instant
    }

    /// The lines, shared by every copy of the handler.
    public final class Lines: Sendable {
        private let lines = Mutex<[Line]>([])

        public init() {}

        func append(_ line: Line) { lines.withLock { $0.append(line) } }

        /// Every line so far.
        public var all: [Line] { lines.withLock { $0 } }

        /// The lines whose message is `message`.
        public func with(message: String) -> [Line] { all.filter { $0.message == message } }

        /// A logger whose every line (trace and up) is recorded here.
        public var logger: Logger {
            Logger(label: "recorded") { [self] _ in LogRecorder(lines: self) }
        }

        /// Waits until `message` was logged `count` times (polling; 20 s at most).
        /// - Returns: those lines, or fewer if the 20 s ran out.
        @discardableResult
        public func wait(for message: String, count: Int = 1) async throws -> [Line] {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let found = with(message: message)
                if found.count >= count { return found }
                try await Task.sleep(for: .milliseconds(10))
            }
            return with(message: message)
        }
    }

    let lines: Lines
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]

    /// A handler recording into `lines`.
    public init(lines: Lines) {
        self.lines = lines
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        lines.append(
            Line(
                level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" },
                time: .now))
    }
}
