import Foundation
import GRDB

extension StateDatabase {
    /// Records a tap for `tagrouter history` (the router calls this once per presentation).
    /// - Parameter tap: the tap.
    /// - Throws: ``StateStoreError``.
    public func recordTap(_ tap: TapRecord) throws {
        let shouldPrune = pruneDue(after: 1)
        let retention = self.retention
        try write("record a tap") { db in
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
            if shouldPrune {
                try db.execute(
                    sql:
                        "DELETE FROM taps WHERE id IN (SELECT id FROM taps ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?)",
                    arguments: [retention]
                )
                try Self.pruneDeliveries(db, keeping: retention)
            }
        }
    }

    /// Deletes finished deliveries and taps beyond the retention limit now.
    /// - Throws: ``StateStoreError``.
    public func prune() throws {
        let retention = self.retention
        try write("prune history") { db in
            try db.execute(
                sql: "DELETE FROM taps WHERE id IN (SELECT id FROM taps ORDER BY time DESC, id DESC LIMIT -1 OFFSET ?)",
                arguments: [retention]
            )
            try Self.pruneDeliveries(db, keeping: retention)
        }
    }

    /// The most recent taps and deliveries, newest first.
    /// - Parameters:
    ///   - failedOnly: only failed deliveries and failed or dropped taps.
    ///   - deniedOnly: only taps a door rule refused, and no deliveries.
    ///   - limit: at most this many of each.
    /// - Returns: the report.
    /// - Throws: ``StateStoreError``.
    public func history(failedOnly: Bool = false, deniedOnly: Bool = false, limit: Int = 20) throws -> HistoryReport {
        let limit = max(0, limit)
        return try read("read history") { db in
            let failedOutcomes = TapRecord.Outcome.allCases.filter(\.isFailure).map { "'\($0.rawValue)'" }
            let filter =
                deniedOnly
                ? "WHERE outcome = 'denied' "
                : failedOnly ? "WHERE outcome IN (\(failedOutcomes.joined(separator: ", "))) " : ""
            let tapRows = try Row.fetchAll(
                db, sql: "SELECT * FROM taps " + filter + "ORDER BY time DESC, id DESC LIMIT ?", arguments: [limit])
            let deliveryRows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM deliveries " + (failedOnly ? "WHERE state = 'failed' " : "")
                    + "ORDER BY created_at DESC, id DESC LIMIT ?",
                arguments: [deniedOnly ? 0 : limit]
            )
            return HistoryReport(
                taps: tapRows.map(Self.tap), deliveries: try deliveryRows.map { try DeliveryRecord(row: $0).delivery })
        }
    }

    private static func tap(_ row: Row) -> TapRecord {
        let time: Int64 = row["time"]
        var record = TapRecord(
            time: Date(timeIntervalSince1970: Double(time) / 1000),
            reader: row["reader"],
            uid: row["uid"],
            uri: row["uri"],
            rule: row["rule"],
            outcome: TapRecord.Outcome(rawValue: row["outcome"]) ?? .failed,
            detail: row["detail"],
            eventID: row["event_id"]
        )
        record.event = row["event"]
        record.presentationID = row["presentation_id"]
        record.tagName = row["tag_name"]
        record.reason = row["reason"]
        return record
    }
}
