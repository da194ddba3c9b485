public import Foundation
import LiveAssociations
import Logging
import StateStore
import TagActions
import TagRouterCore
import TagRules

/// `tagrouter check` and `tagrouter match` (docs/cli.md): rules validated, and one tag tried against them.
public enum RulesCommands {
    /// `tagrouter check`: every problem of every file, or a count of rules and files.
    /// - Parameters:
    ///   - sources: the rules files and folders given; the configured default when empty.
    ///   - json: print the result as JSON.
    ///   - stateDirectory: `--state-dir`, whose cache says which live association files are fetched; the default
    ///     one when nil.
    /// - Returns: the report; status 1 when a file has an error.
    public static func check(sources: [String], json: Bool, stateDirectory: String? = nil) -> CommandOutput {
        let loaded = RuleSet.load(sources: HostDefaults.rulesSources(sources), environment: HostDefaults.environment)
        var report = CheckReport(loaded)
        if let ruleSet = loaded.ruleSet {
            report.diagnostics += AssociationCommands.warnings(
                for: ruleSet, stateDirectory: HostDefaults.stateDirectory(stateDirectory))
        }
        return .lines([json ? report.json : report.text], status: report.succeeded ? 0 : 1)
    }

    /// A UID as typed by a user (`04:A1-b2 c3`), as rules and events write it: uppercase hex without separators.
    /// - Parameter text: the UID as typed.
    /// - Returns: the canonical UID, or nil when it is not an even number of hex digits.
    public static func canonicalUID(_ text: String) -> String? {
        guard let bytes = try? HexInput.bytes(text), !bytes.isEmpty else { return nil }
        return UID.hex(bytes)
    }

    /// A tag as `tagrouter match` describes it.
    public struct Tag: Sendable {
        /// The URI, or nil for a tag without one.
        public var uri: String?
        /// The UID as typed.
        public var uid: String?
        /// The reader name.
        public var reader: String
        /// The technology as rules name it.
        public var tech: String
        /// The texts of its Text records.
        public var texts: [String]

        /// Creates a tag.
        /// - Parameters:
        ///   - uri: the URI, or nil.
        ///   - uid: the UID as typed.
        ///   - reader: the reader name.
        ///   - tech: the technology.
        ///   - texts: the texts of its Text records.
        public init(uri: String?, uid: String?, reader: String, tech: String, texts: [String]) {
            self.uri = uri
            self.uid = uid
            self.reader = reader
            self.tech = tech
            self.texts = texts
        }
    }

    /// `tagrouter match`: which rules a tag would trigger and their rendered actions, run nothing.
    /// - Parameters:
    ///   - tag: the tag.
    ///   - sources: the rules files and folders given; the configured default when empty.
    ///   - explain: show every rule's verdict.
    ///   - json: print the result as JSON.
    ///   - stateDirectory: `--state-dir`, whose cached live association files the rules use; the default one when
    ///     nil.
    ///   - date: `--at`: when the tag is presented (time windows, validity of enrolled tags); now when nil.
    /// - Returns: the report; status 3 when a door rule refuses the tag (and none decides; `continue` rules may
    ///   still match), else 0 when a rule matches, 2 when none does; 1 when the rules have errors.
    public static func match(
        _ tag: Tag, sources: [String], explain: Bool, json: Bool, stateDirectory: String? = nil, at date: Date? = nil
    ) -> CommandOutput {
        let result = RuleSet.load(sources: HostDefaults.rulesSources(sources), environment: HostDefaults.environment)
        guard let loaded = result.ruleSet else {
            return .lines([CheckReport(result).text], status: 1)
        }
        let (entries, _) =
            loaded.liveDomains.isEmpty
            ? ([:], nil)
            : AssociationCommands.cachedEntries(stateDirectory: HostDefaults.stateDirectory(stateDirectory))
        let ruleSet = loaded.applying(AssociationRefresh.files(Array(entries.values)))
        let event = TagEvent(
            uid: tag.uid.map { canonicalUID($0) ?? $0 }, reader: tag.reader, tech: tag.tech, uri: tag.uri,
            texts: tag.texts)
        // Replays are judged against the counters the router accepted, when its state database is there.
        let directory = HostDefaults.stateDirectory(stateDirectory)
        var logger = ReaderCommands.logger
        logger.logLevel = .error
        let counters =
            StateDatabase.exists(in: directory) ? try? StateDatabase(directory: directory, logger: logger) : nil
        let report = MatchReport(
            event: event, ruleSet: ruleSet, explaining: explain, eventID: UUID().uuidString.lowercased(),
            time: Timestamp.rfc3339(date ?? Date()), at: date ?? Date(),
            highestSUNCounter: counters.map { database in
                { try? database.highestSUNCounter(keySetID: $0.keySetID, uid: $0.uid) }
            })
        let status: Int32 = report.isDenied ? 3 : report.isIgnored ? 2 : 0
        var output = CommandOutput.lines([json ? report.json : report.text], status: status)
        output.errors = result.diagnostics.map(\.description)
        return output
    }
}
