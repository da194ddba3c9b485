import Foundation
import GRDB
import Synchronization

extension Outbox {
    /// Records a tap for `tagrouter history` (the router calls this once per presentation).
    /// - Parameter tap: the tap.
    /// - Throws: ``ActionError`` (`stateDatabase`).
    public func recordTap(_ tap: TapRecord) throws {
        let shouldPrune = writesSincePrune.add(1, ordering: .relaxed).newValue >= 256
        if shouldPrune { writesSincePrune.store(0, ordering: .relaxed) }
        let retention = self.retention
        try write("record a tap") { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO taps (time, reader, uid, uri, rule, outcome, detail, event_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                Timestamp.milliseconds(tap.time), tap.reader, tap.uid, tap.uri, tap.rule, tap.outcome.rawValue,
                tap.detail, tap.eventID,
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
    /// - Throws: ``ActionError`` (`stateDatabase`).
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
    ///   - limit: at most this many of each.
    /// - Returns: the report.
    /// - Throws: ``ActionError`` (`stateDatabase`).
    public func history(failedOnly: Bool = false, limit: Int = 20) throws -> HistoryReport {
        let limit = max(0, limit)
        return try read("read history") { db in
            let failedOutcomes = TapRecord.Outcome.allCases.filter(\.isFailure).map { "'\($0.rawValue)'" }
            let tapRows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM taps "
                    + (failedOnly ? "WHERE outcome IN (\(failedOutcomes.joined(separator: ", "))) " : "")
                    + "ORDER BY time DESC, id DESC LIMIT ?",
                arguments: [limit]
            )
            let deliveryRows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM deliveries " + (failedOnly ? "WHERE state = 'failed' " : "")
                    + "ORDER BY created_at DESC, id DESC LIMIT ?",
                arguments: [limit]
            )
            return HistoryReport(taps: tapRows.map(Self.tap), deliveries: deliveryRows.map(Self.delivery))
        }
    }

    /// The deliveries of one event (one per webhook action), oldest first.
    /// - Parameter eventID: the event id.
    /// - Returns: the deliveries.
    /// - Throws: ``ActionError`` (`stateDatabase`).
    public func deliveries(eventID: String) throws -> [DeliveryRecord] {
        try read("read deliveries") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM deliveries WHERE event_id = ? ORDER BY id", arguments: [eventID])
                .map(Self.delivery)
        }
    }

    /// How many deliveries are in each state.
    /// - Returns: counts by state name (`pending`, `delivered`, `failed`).
    /// - Throws: ``ActionError`` (`stateDatabase`).
    public func deliveryCounts() throws -> [String: Int] {
        try read("count deliveries") { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state") {
                counts[row["state"]] = row["n"]
            }
            return counts
        }
    }

    private static func tap(_ row: Row) -> TapRecord {
        let time: Int64 = row["time"]
        return TapRecord(
            time: Date(timeIntervalSince1970: Double(time) / 1000),
            reader: row["reader"],
            uid: row["uid"],
            uri: row["uri"],
            rule: row["rule"],
            outcome: TapRecord.Outcome(rawValue: row["outcome"]) ?? .failed,
            detail: row["detail"],
            eventID: row["event_id"]
        )
    }

    private static func delivery(_ row: Row) -> DeliveryRecord {
        let state: String = row["state"]
        let created: Int64 = row["created_at"]
        let next: Int64 = row["next_attempt_at"]
        let finished: Int64? = row["finished_at"]
        let kind: String = row["kind"] ?? "webhook"
        return DeliveryRecord(
            id: row["id"],
            eventID: row["event_id"],
            rule: row["rule"],
            url: kind == "webhook" ? WebhookRequest.redacted(row["url"]) : row["url"],
            method: row["method"],
            state: state,
            attempts: row["attempts"],
            lastStatus: row["last_status"],
            lastError: row["last_error"],
            createdAt: Timestamp.rfc3339(milliseconds: created),
            nextAttemptAt: state == "pending" ? Timestamp.rfc3339(milliseconds: next) : nil,
            finishedAt: finished.map { Timestamp.rfc3339(milliseconds: $0) },
            kind: kind
        )
    }
}
