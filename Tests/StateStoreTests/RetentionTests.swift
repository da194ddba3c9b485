import Foundation
import GRDB
import Testing

@testable import StateStore

/// The tap history's retention by age and by size, against a real SQLite file (docs/operations.md, "Retention of
/// the history").
@Suite("The history's retention")
struct RetentionTests {
    static let day = 86_400.0
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    /// Prunes batch after batch until one deletes nothing; returns every batch.
    static func pruneAll(_ database: StateDatabase, _ retention: HistoryRetention, batchSize: Int) throws
        -> [StateDatabase.PruneBatch]
    {
        var batches: [StateDatabase.PruneBatch] = []
        while true {
            let batch = try database.pruneTaps(retention, now: now, batchSize: batchSize)
            if batch.deleted == 0 { return batches }
            batches.append(batch)
        }
    }

    @Test("taps older than the age go, in batches of at most the batch size; younger ones stay")
    func byAge() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            // One tap a day for 500 days, the newest today.
            for age in 0..<500 {
                try database.recordTap(
                    TapRecord(time: Self.now - Double(age) * Self.day - 1, reader: "R\(age)", outcome: .matched))
            }
            let retention = HistoryRetention(maxAge: .seconds(400 * 86_400), maxBytes: 1 << 40)
            let batches = try Self.pruneAll(database, retention, batchSize: 30)
            // Ages 400 to 499 days (and a second) are older than 400 days: 100 taps.
            #expect(batches.map(\.expired) == [30, 30, 30, 10])
            #expect(batches.allSatisfy { $0.overSize == 0 })
            #expect(try database.tapCount() == 400)
            let oldest = try database.history(limit: 1000).taps.last
            #expect(oldest?.reader == "R399")
        }
    }

    @Test("past the size, the oldest taps go until the pages in use are within it; the newest stay")
    func bySize() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let detail = String(repeating: "x", count: 400)
            for index in 0..<4000 {
                try database.recordTap(
                    TapRecord(
                        time: Self.now - 4000 + Double(index), reader: "R\(index)", outcome: .failed, detail: detail))
            }
            let before = try database.usedBytes()
            #expect(before > 1_500_000, "4,000 taps of 400 bytes: \(before) bytes in use")
            let retention = HistoryRetention(maxAge: .seconds(400 * 86_400), maxBytes: 512 * 1024)
            let batches = try Self.pruneAll(database, retention, batchSize: 200)
            #expect(batches.allSatisfy { $0.expired == 0 && $0.overSize <= 200 })
            #expect(try database.usedBytes() <= 512 * 1024)
            let left = try database.tapCount()
            #expect(left > 0 && left < 4000)
            // What is left is the newest, without a gap.
            let taps = try database.history(limit: 5000).taps
            #expect(taps.first?.reader == "R3999")
            #expect(taps.last?.reader == "R\(4000 - left)")
        }
    }

    @Test("within its age and size, nothing is pruned")
    func nothingToPrune() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            for index in 0..<300 {
                try database.recordTap(TapRecord(time: Self.now - Double(index), reader: "R", outcome: .ignored))
            }
            #expect(try database.pruneTaps(.default, now: Self.now) == .init(expired: 0, overSize: 0))
            #expect(try database.tapCount() == 300)
        }
    }

    @Test("recording taps prunes nothing: 20,000 taps stay until a prune")
    func recordingDoesNotPrune() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, retention: 5, logger: TestEnvironment.logger)
            for index in 0..<20_000 {
                try database.recordTap(
                    TapRecord(time: Self.now - 1_000_000 + Double(index), reader: "R", outcome: .ignored))
            }
            #expect(try database.tapCount() == 20_000)
        }
    }

    @Test("a database of the previous release keeps its taps and gains the index of refusals")
    func migration() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let path = directory + "/tagrouter.sqlite"
            let old = try DatabaseQueue(path: path)
            try StateDatabase.migrator.migrate(old, upTo: "sun-counters")
            try old.write { db in
                try db.execute(
                    sql: "INSERT INTO taps (time, reader, outcome, reason) VALUES (?, 'door', 'denied', 'unknown-tag')",
                    arguments: [Timestamp.milliseconds(Self.now)])
            }
            try old.close()
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            #expect(try database.history(deniedOnly: true).taps.map(\.reason) == ["unknown-tag"])
            let indexes = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'taps'")
            }
            #expect(Set(indexes) == ["taps_time", "taps_denied"])
            let plan = try DatabaseQueue(path: path).read { db in
                try Row.fetchAll(
                    db,
                    sql: "EXPLAIN QUERY PLAN SELECT * FROM taps WHERE outcome = 'denied' ORDER BY time DESC, id DESC"
                ).map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("taps_denied") }, "\(plan)")
            // Pruning and time ranges walk `taps_time` (there since the first schema), never the whole table.
            for query in [
                "SELECT id FROM taps WHERE time < 5 ORDER BY time, id LIMIT 500",
                "SELECT id FROM taps ORDER BY time, id LIMIT 500",
                "SELECT * FROM taps WHERE time >= 1 AND time < 9 AND reader = 'r' ORDER BY time ASC, id ASC",
            ] {
                let steps = try DatabaseQueue(path: path).read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query).map { $0["detail"] as String }
                }
                #expect(
                    steps.contains {
                        $0.contains("USING INDEX taps_time") || $0.contains("USING COVERING INDEX taps_time")
                    }, "\(query): \(steps)")
                #expect(!steps.contains { $0.contains("USE TEMP B-TREE") }, "\(query): \(steps)")
            }
        }
    }
}
