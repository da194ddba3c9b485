import Foundation
import GRDB

extension StateDatabase {
    /// Records a tap for `tagrouter history` (the router calls this once per presentation): one `INSERT`, nothing
    /// else on the tap's path; old taps are pruned apart from it, in small batches (``pruneTaps(_:now:batchSize:)``).
    /// - Parameter tap: the tap.
    /// - Throws: ``StateStoreError``.
    public func recordTap(_ tap: TapRecord) throws {
        try write("record a tap", isOneStatement: true) { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO taps (time, reader, uid, uri, rule, outcome, detail, event_id, event, presentation_id,
                        tag_name, reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                Timestamp.milliseconds(tap.time), tap.reader, tap.uid, tap.uri, tap.rule, tap.outcome.rawValue,
                tap.detail, tap.eventID, tap.event, tap.presentationID, tap.tagName, tap.reason,
            ])
        }
    }

    /// Records many taps in one transaction (an import, a benchmark's generated history).
    /// - Parameter taps: the taps.
    /// - Throws: ``StateStoreError``; then none of them is recorded.
    public func recordTaps(_ taps: [TapRecord]) throws {
        try write("record taps") { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO taps (time, reader, uid, uri, rule, outcome, detail, event_id, event, presentation_id,
                        tag_name, reason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for tap in taps {
                try statement.execute(arguments: [
                    Timestamp.milliseconds(tap.time), tap.reader, tap.uid, tap.uri, tap.rule, tap.outcome.rawValue,
                    tap.detail, tap.eventID, tap.event, tap.presentationID, tap.tagName, tap.reason,
                ])
            }
        }
    }

    /// Deletes the finished deliveries beyond ``retention`` now (the newest are kept; taps are pruned by
    /// ``pruneTaps(_:now:batchSize:)``).
    /// - Throws: ``StateStoreError``.
    public func prune() throws {
        let retention = self.retention
        try write("prune history") { db in
            try Self.pruneDeliveries(db, keeping: retention)
        }
    }

    /// The most recent taps and deliveries, newest first.
    /// - Parameters:
    ///   - filter: which taps; a filter on anything but the time range (reader, rule, tag, outcome) lists no
    ///     deliveries, and the time range applies to a delivery's creation.
    ///   - failedOnly: only failed deliveries and failed or dropped taps.
    ///   - deniedOnly: only taps a door rule refused, and no deliveries.
    ///   - limit: at most this many of each.
    /// - Returns: the report.
    /// - Throws: ``StateStoreError``.
    public func history(
        filter: TapFilter = TapFilter(), failedOnly: Bool = false, deniedOnly: Bool = false, limit: Int = 20
    ) throws -> HistoryReport {
        let limit = max(0, limit)
        let includesDeliveries = !deniedOnly && !filter.selectsTaps
        var taps: [TapRecord] = []
        if let narrowed = filter.narrowed(failedOnly: failedOnly, deniedOnly: deniedOnly) {
            try forEachTap(matching: narrowed, order: .newestFirst, limit: limit) { taps.append($0) }
        }
        let (since, until) = (filter.since.map(Timestamp.milliseconds), filter.until.map(Timestamp.milliseconds))
        let deliveries = try read("read history") { db in
            var conditions: [String] = []
            var arguments = StatementArguments()
            if failedOnly { conditions.append("state = 'failed'") }
            if let since {
                conditions.append("created_at >= ?")
                arguments += [since]
            }
            if let until {
                conditions.append("created_at < ?")
                arguments += [until]
            }
            arguments += [includesDeliveries ? limit : 0]
            let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") + " "
            return try DeliveryRecord.fetchAll(
                db, sql: "SELECT * FROM deliveries " + condition + "ORDER BY created_at DESC, id DESC LIMIT ?",
                arguments: arguments
            ).map(\.delivery)
        }
        return HistoryReport(taps: taps, deliveries: deliveries)
    }
}
