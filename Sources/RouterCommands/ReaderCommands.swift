import Foundation
import JSONOutput
import Logging
import NDEF
import NFCTag
import PCSC

/// `tagrouter readers` and `tagrouter read` (docs/cli.md): what pcscd sees, and one tag read on demand.
public enum ReaderCommands {
    /// The logger of `readers`, `read` and `emulate`: warnings and errors on standard error, so standard output
    /// holds only the command's result (a JSON document stays parseable). Leaves the global logging system alone.
    static var logger: Logger {
        var logger = Logger(label: "tagrouter") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }

    /// One reader and what is on it, as `readers --json` prints it.
    struct Entry: Encodable {
        /// What is known about the tag on the reader.
        struct Tag: Encodable {
            var uid: String?
            var tech: String
            var atr: String
            /// Why the tag could not be read fully, if it could not.
            var error: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(uid, forKey: .uid)
                try container.encode(tech, forKey: .tech)
                try container.encode(atr, forKey: .atr)
                try container.encodeIfPresent(error, forKey: .error)
            }

            private enum CodingKeys: String, CodingKey { case uid, tech, atr, error }
        }

        var reader: String
        var tag: Tag?
        /// What the reader can show, and how (docs/tags.md, "Reader feedback").
        var feedback: ReaderSupport

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reader, forKey: .reader)
            try container.encode(tag, forKey: .tag)
            try container.encode(feedback, forKey: .feedback)
        }

        private enum CodingKeys: String, CodingKey { case reader, tag, feedback }
    }

    /// `tagrouter readers`: every reader and the tag on each.
    /// - Parameter json: print a JSON array instead of one line per reader.
    /// - Returns: the listing; status 1 with one sentence when pcscd cannot be reached or refuses access.
    public static func readers(json: Bool) async -> CommandOutput {
        let entries: [Entry]
        do {
            entries = try await PCSCContext.withContext(logger: logger, survey)
        } catch {
            return .failure("\(error)")
        }
        if json { return .lines([JSONOutput.line(entries)]) }
        if entries.isEmpty { return .lines(["no readers"]) }
        return .lines(
            entries.flatMap { entry in
                var line = "\(entry.reader): no tag"
                if let tag = entry.tag {
                    line = "\(entry.reader): \(tag.tech) \(tag.uid ?? "(no UID)") ATR \(tag.atr)"
                    line = tag.error.map { line + " (\($0))" } ?? line
                }
                var lines = [line, "  feedback: \(entry.feedback.summary)"]
                if entry.feedback.lacksEscape { lines.append("  to enable it: \(ReaderSupport.infoPlistAdvice)") }
                return lines
            })
    }

    /// Lists the readers and reads the tag on each.
    private static func survey(context: PCSCContext) async throws -> [Entry] {
        let readers = try await context.readers()
        var entries: [Entry] = []
        for status in try await context.status(of: readers) {
            let support = await ReaderSupport.probe(reader: status.reader, context: context)
            guard status.isCardPresent else {
                entries.append(Entry(reader: status.reader, feedback: support))
                continue
            }
            do {
                let report = try await TagReport.read(reader: status.reader, atr: status.atr, context: context)
                entries.append(
                    Entry(
                        reader: status.reader, tag: .init(uid: report.uid, tech: report.tech, atr: report.atr),
                        feedback: support))
            } catch {
                let tech = ATRInfo(atr: status.atr).technology?.rawValue ?? "unknown"
                let atr = HexText.string(status.atr, uppercase: true)
                entries.append(
                    Entry(
                        reader: status.reader, tag: .init(uid: nil, tech: tech, atr: atr, error: "\(error)"),
                        feedback: support))
            }
        }
        return entries
    }

    /// `tagrouter read`: the tag on the first matching reader, or the next one presented.
    /// - Parameters:
    ///   - readers: `--reader`.
    ///   - wait: wait for a tag instead of failing when none is there.
    ///   - json: print one JSON document instead of lines.
    /// - Returns: the tag; status 1 with one sentence when it could not be read.
    public static func read(readers: ReaderFilter, wait: Bool, json: Bool) async -> CommandOutput {
        do {
            let report = try await readers.withCard(wait: wait) { reader, atr, context in
                try await TagReport.read(reader: reader, atr: atr, context: context)
            }
            return .lines(json ? [try JSONOutput.string(report)] : report.lines)
        } catch {
            return .failure("\(error)")
        }
    }
}
