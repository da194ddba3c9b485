import Foundation
import Logging
import StateStore
import TagRouterCore
import TagRules
import Testing

/// The history pruner against a real state database: the retention the rules ask for, batch after batch
/// (docs/operations.md, "Retention of the history").
@Suite struct HistoryPrunerTests {
    static var quiet: Logger {
        var logger = Logger(label: "pruner-tests")
        logger.logLevel = .critical
        return logger
    }

    @Test func theRulesRetentionFillsInTheDefaults() throws {
        let location = SourceLocation(file: "f", line: 1, column: 1)
        #expect(HistoryPruner.retention(nil) == .default)
        #expect(HistoryRetention.default == HistoryRetention(maxAge: .seconds(31_536_000), maxBytes: 1_000_000_000))
        #expect(
            HistoryPruner.retention(HistorySettings(keep: .seconds(3600), maxSize: nil, location: location))
                == HistoryRetention(maxAge: .seconds(3600), maxBytes: 1_000_000_000))
        #expect(
            HistoryPruner.retention(HistorySettings(keep: nil, maxSize: 5_000_000, location: location))
                == HistoryRetention(maxAge: .seconds(31_536_000), maxBytes: 5_000_000))
    }

    @Test func oneRunPrunesEveryExpiredTapInBatchesAndTheNextFindsNothing() async throws {
        let directory = NSTemporaryDirectory() + "pruner-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try StateDatabase(directory: directory, logger: Self.quiet)
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        // 1,200 taps, one a minute, the newest a minute ago: those older than 10 h (600 of them) expire.
        for minute in 1...1200 {
            try database.recordTap(TapRecord(time: now - Double(minute * 60), reader: "R\(minute)", outcome: .matched))
        }
        let set = try RuleSet.load(
            files: [("f.yaml", "version: 1\nhistory: {keep: 10h}\nrules: []\n")], environment: [:]
        ).get()
        let pruner = HistoryPruner(
            database: database, retention: { HistoryPruner.retention(set.history) }, now: { now }, batchSize: 70,
            pause: .zero, logger: Self.quiet)
        #expect(await pruner.pruneNow() == StateDatabase.PruneBatch(expired: 600, overSize: 0))
        #expect(try database.tapCount() == 600)
        #expect(try database.history(limit: 1000).taps.last?.reader == "R600")
        #expect(await pruner.pruneNow().deleted == 0)
    }
}
