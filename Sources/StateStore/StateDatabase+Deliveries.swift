import Foundation
import GRDB

extension StateDatabase {
    /// Inserts a delivery, pending and due at once: from here on it survives a crash or a restart.
    /// - Parameter delivery: the delivery; its `id` is ignored.
    /// - Returns: the delivery with the row id it was given.
    /// - Throws: ``StateStoreError``.
    public func insert(_ delivery: Delivery) throws -> Delivery {
        try write("store a delivery", isOneStatement: true) { db in
            try Self.insertRow(delivery, db)
            var inserted = delivery
            inserted.id = db.lastInsertedRowID
            return inserted
        }
    }

    /// Inserts one delivery's row, within the caller's write: ``insert(_:)`` alone, or an import of the legacy
    /// intake log, which keeps the log's ids (`keepingID`).
    static func insertRow(_ delivery: Delivery, keepingID: Bool = false, _ db: Database) throws {
        var row = delivery
        if !keepingID { row.id = 0 }
        try DeliveryRecord(row).insert(db)
    }

    /// Pending deliveries of `kind` due at `now`, oldest first, skipping `excluded` (in flight).
    /// - Parameters:
    ///   - kind: webhooks or publications.
    ///   - now: milliseconds since 1970.
    ///   - limit: at most this many.
    ///   - excluded: ids not to return.
    /// - Returns: the deliveries.
    /// - Throws: ``StateStoreError``.
    public func due(_ kind: Delivery.Kind, now: Int64, limit: Int, excluding excluded: Set<Int64> = []) throws
        -> [Delivery]
    {
        try read("read pending deliveries") { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM deliveries WHERE state = 'pending' AND kind = ? AND next_attempt_at <= ?
                        ORDER BY next_attempt_at, id LIMIT ?
                        """
                ),
                arguments: [kind.rawValue, now, limit + excluded.count]
            )
            var due: [Delivery] = []
            while due.count < limit, let row = try rows.next() {
                // In flight: skipped before its headers and transport are decoded.
                let id: Int64 = row["id"]
                if !excluded.contains(id) { due.append(try DeliveryRecord(row: row).delivery) }
            }
            return due
        }
    }

    /// The earliest `next_attempt_at` among pending webhook deliveries not in `excluded`, if any.
    /// - Parameter excluded: ids to leave out (in flight).
    /// - Returns: milliseconds since 1970.
    /// - Throws: ``StateStoreError``.
    public func nextAttemptTime(excluding excluded: Set<Int64> = []) throws -> Int64? {
        try read("read pending deliveries") { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id, next_attempt_at FROM deliveries WHERE state = 'pending' AND kind = 'webhook'
                        ORDER BY next_attempt_at, id LIMIT ?
                        """
                ),
                arguments: [excluded.count + 1]
            )
            return rows.first { !excluded.contains($0["id"]) }?["next_attempt_at"]
        }
    }

    /// Records the outcomes of attempts in one transaction, and prunes old finished rows now and then. A delivery
    /// that is finished (delivered or failed) keeps no secret and no headers: only a retry needed them, and they
    /// may hold tokens.
    /// - Parameter outcomes: what each attempt changed.
    /// - Throws: ``StateStoreError``; nothing is recorded then.
    public func record(_ outcomes: [DeliveryOutcome]) throws {
        guard !outcomes.isEmpty else { return }
        let shouldPrune = pruneDue(after: outcomes.filter(\.state.isFinished).count)
        let retention = self.retention
        try write("record delivery attempts") { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = ?1, attempts = attempts + 1, last_status = ?2, last_error = ?3,
                        next_attempt_at = ?4, finished_at = ?5,
                        secret = CASE WHEN ?1 = 'pending' THEN secret END,
                        headers = CASE WHEN ?1 = 'pending' THEN headers ELSE '[]' END
                    WHERE id = ?6 AND state = 'pending'
                    """
            )
            for outcome in outcomes {
                try statement.execute(arguments: [
                    outcome.state.rawValue, outcome.status, outcome.error, outcome.nextAttemptAt, outcome.finishedAt,
                    outcome.id,
                ])
            }
            if shouldPrune { try Self.pruneDeliveries(db, keeping: retention) }
        }
    }

    /// How many deliveries wait in the outbox, by kind (a kind with none is 0).
    /// - Returns: the counts.
    /// - Throws: ``StateStoreError``.
    public func pendingCounts() throws -> [Delivery.Kind: Int] {
        try read("count pending deliveries") { db in
            var counts = Dictionary(uniqueKeysWithValues: Delivery.Kind.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(
                db, sql: "SELECT kind, COUNT(*) AS n FROM deliveries WHERE state = 'pending' GROUP BY kind")
            {
                if let kind = Delivery.Kind(rawValue: row["kind"]) { counts[kind] = row["n"] }
            }
            return counts
        }
    }

    /// The deliveries of one event (one per webhook or MQTT action), oldest first.
    /// - Parameter eventID: the event id.
    /// - Returns: the deliveries.
    /// - Throws: ``StateStoreError``.
    public func deliveries(eventID: String) throws -> [Delivery] {
        try read("read deliveries") { db in
            try DeliveryRecord.fetchAll(
                db, sql: "SELECT * FROM deliveries WHERE event_id = ? ORDER BY id", arguments: [eventID]
            ).map(\.delivery)
        }
    }

    /// How many deliveries are in each state.
    /// - Returns: counts by state.
    /// - Throws: ``StateStoreError``.
    public func deliveryCounts() throws -> [Delivery.State: Int] {
        try read("count deliveries") { db in
            var counts: [Delivery.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state") {
                if let state = Delivery.State(rawValue: row["state"]) { counts[state] = row["n"] }
            }
            return counts
        }
    }

    /// Deletes the oldest finished deliveries beyond `keeping`.
    static func pruneDeliveries(_ db: Database, keeping: Int) throws {
        try db.execute(
            sql: """
                DELETE FROM deliveries WHERE state <> 'pending' AND id IN (
                    SELECT id FROM deliveries WHERE state <> 'pending'
                    ORDER BY finished_at DESC, id DESC LIMIT -1 OFFSET ?)
                """,
            arguments: [keeping]
        )
    }
}
