import Logging
import Synchronization

/// A log handler that keeps every line in memory, for assertions on what the router logs.
struct LogRecorder: LogHandler {
    /// One logged line.
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    /// The lines, shared by every copy of the handler.
    final class Lines: Sendable {
        private let lines = Mutex<[Line]>([])

        func append(_ line: Line) { lines.withLock { $0.append(line) } }

        /// Every line so far.
        var all: [Line] { lines.withLock { $0 } }

        /// The lines whose message is `message`.
        func with(message: String) -> [Line] { all.filter { $0.message == message } }
    }

    let lines: Lines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        lines.append(
            Line(
                level: event.level, message: "\(event.message)",
                metadata: merged.mapValues { "\($0)" }))
    }
}
