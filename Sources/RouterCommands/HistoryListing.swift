public import Foundation
import Logging
public import StateStore
import TagActions

/// `tagrouter history` (docs/cli.md): what the state database remembers.
public enum HistoryListing {
    /// What `history` selects: its filters, besides `--failed` and `--denied`.
    public struct Query: Sendable {
        /// `--since`.
        public var since: HistoryTimeArgument?
        /// `--until`.
        public var until: HistoryTimeArgument?
        /// `--reader`: a reader's name.
        public var reader: String?
        /// `--rule`: a rule's name.
        public var rule: String?
        /// `--tag`: a UID (any case, separators allowed) or an enrolled name.
        public var tag: String?
        /// `--outcome` (repeatable).
        public var outcomes: [OutcomeArgument] = []

        /// A query with no filter.
        public init() {}

        /// The tap filter, spans counted back from `now`.
        /// - Parameter now: when the command runs.
        /// - Returns: the filter.
        public func filter(now: Date) -> TapFilter {
            var filter = TapFilter()
            filter.since = since?.date(now: now)
            filter.until = until?.date(now: now)
            filter.reader = reader
            filter.rule = rule
            if let tag {
                filter.tagName = tag
                filter.uid = RulesCommands.canonicalUID(tag)
            }
            filter.outcomes = Set(outcomes.map(\.outcome))
            return filter
        }
    }

    /// `tagrouter history` as a list (`--format table` or `json`): recent taps and webhook deliveries.
    /// - Parameters:
    ///   - stateDirectory: `--state-dir`; the default one when nil.
    ///   - query: the filters.
    ///   - failedOnly: only failed taps and deliveries.
    ///   - deniedOnly: only the taps a door rule refused.
    ///   - limit: at most this many of each.
    ///   - json: print JSON.
    ///   - now: when the command runs (spans count back from it).
    /// - Returns: the history; status 1 with one sentence when the state database cannot be read.
    public static func output(
        stateDirectory: String?, query: Query = Query(), failedOnly: Bool, deniedOnly: Bool = false, limit: Int,
        json: Bool, now: Date = Date()
    ) -> CommandOutput {
        let directory = HostDefaults.stateDirectory(stateDirectory)
        do {
            let report =
                StateDatabase.exists(in: directory)
                ? try StateDatabase(directory: directory, logger: quietLogger).history(
                    filter: query.filter(now: now), failedOnly: failedOnly, deniedOnly: deniedOnly, limit: limit)
                : HistoryReport(taps: [], deliveries: [])
            return CommandOutput(standardOutput: json ? report.json() + "\n" : report.text())
        } catch {
            return .failure("Error: \(error)")
        }
    }

    /// `tagrouter history --format jsonl|csv`: the taps the filters keep, oldest first, streamed to `write` in
    /// chunks (constant memory, whatever their number).
    /// - Parameters:
    ///   - stateDirectory: `--state-dir`; the default one when nil.
    ///   - query: the filters.
    ///   - failedOnly: only failed or dropped taps.
    ///   - deniedOnly: only the taps a door rule refused.
    ///   - limit: at most this many; nil for all.
    ///   - format: JSON lines or CSV.
    ///   - now: when the command runs (spans count back from it).
    ///   - write: where the text goes (standard output).
    /// - Returns: status 0, or 1 with one sentence when the state database cannot be read (what was written
    ///   stays written).
    public static func export(
        stateDirectory: String?, query: Query, failedOnly: Bool, deniedOnly: Bool, limit: Int?,
        format: TapExportFormat, now: Date = Date(), write: (String) throws -> Void
    ) -> CommandOutput {
        let directory = HostDefaults.stateDirectory(stateDirectory)
        let filter = query.filter(now: now).narrowed(failedOnly: failedOnly, deniedOnly: deniedOnly)
        do {
            if StateDatabase.exists(in: directory), let filter {
                try StateDatabase(directory: directory, logger: quietLogger).exportTaps(
                    matching: filter, format: format, limit: limit, to: write)
            } else if format == .csv {
                try write(TapExportFormat.csvHeader + "\r\n")
            }
            return CommandOutput()
        } catch {
            return .failure("Error: \(error)")
        }
    }

    private static var quietLogger: Logger {
        var logger = ReaderCommands.logger
        logger.logLevel = .error
        return logger
    }
}
