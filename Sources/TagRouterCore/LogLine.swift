import Foundation
import JSONOutput
public import Logging
import NDEF
import StateStore
import Synchronization
import TagActions

/// Writes log lines to standard error: `text` (one readable line) or `json` (one JSON object per line, for
/// journald, Loki and friends). Metadata keys are dotted (`reader.name`, `rule.name`, …).
public struct LogLine: LogHandler {
    /// The output format.
    public enum Format: String, Sendable, CaseIterable {
        /// `2026-11-23T12:00:00.123Z info tap reader.name="…" rule.name=…`
        case text
        /// `{"time": "…", "level": "info", "message": "tap", "reader.name": "…"}`
        case json
    }

    /// The level below which nothing is written.
    public var logLevel: Logger.Level
    /// Metadata attached to every line of this logger.
    public var metadata: Logger.Metadata = [:]
    let format: Format
    let write: @Sendable (String) -> Void

    /// Creates a handler.
    /// - Parameters:
    ///   - format: text or JSON.
    ///   - level: the lowest level written.
    ///   - write: where a finished line goes (standard error by default).
    public init(
        format: Format, level: Logger.Level, write: @escaping @Sendable (String) -> Void = LogLine.standardError
    ) {
        self.format = format
        self.logLevel = level
        self.write = write
    }

    /// Metadata by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Formats and writes one event.
    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let time = Timestamp.rfc3339(Date())
        switch format {
        case .text:
            var line = "\(time) \(event.level) \(event.message)"
            for key in merged.keys.sorted() {
                line += " \(key)=\(Self.quoted("\(merged[key]!)"))"
            }
            write(line)
        case .json:
            var object: [String: String] = ["time": time, "level": "\(event.level)", "message": "\(event.message)"]
            for (key, value) in merged { object[key] = "\(value)" }
            let data = (try? JSONOutput.data(object)) ?? Data()
            write(String(decoding: data, as: UTF8.self))
        }
    }

    /// Quotes a value when it holds spaces, quotes, `=` or control characters; escapes those.
    static func quoted(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.unicodeScalars.contains {
                $0 == " " || $0 == "\"" || $0 == "=" || PrintableText.isControl($0)
            }
        guard needsQuotes else { return value }
        return "\"" + PrintableText.line(value, escapingQuotes: true) + "\""
    }

    private static let lock = Mutex(())

    /// Writes a line to standard error, whole (lines from several tasks never interleave).
    public static let standardError: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }
}
