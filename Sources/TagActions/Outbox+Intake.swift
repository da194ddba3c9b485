import Foundation
import GRDB
import Logging
import Synchronization

/// Rows accepted into the outbox and not yet in the `deliveries` table.
struct Intake: Sendable {
    /// The intake log; `nil` for an outbox opened without it, whose rows are inserted before they are accepted.
    var log: IntakeLog?
    /// The next row id (with the log, ids are given here, in the order the rows are written to it).
    var nextID: Int64
    /// Rows written to the log and not yet inserted, in id order.
    var pending: [DeliveryRow] = []
}

extension Outbox {
    /// Accepts a row: with the intake log, appends it there (one `write`) and returns at once, durable; the row
    /// is inserted into the table by the next ``storeAccepted()``. Without the log, inserts it.
    /// - Parameter row: the row; its `id` is set here.
    /// - Returns: the row id, and whether a ``storeAccepted()`` is still owed for the row.
    /// - Throws: ``ActionError`` (`stateDatabase`) when neither the log nor the table could take it.
    func accept(_ row: DeliveryRow) throws -> (id: Int64, owesStore: Bool) {
        let logged = intake.withLock { intake -> Int64? in
            guard let log = intake.log else { return nil }
            var row = row
            row.id = intake.nextID
            do {
                try log.append(row)
            } catch {
                logger.error(
                    "intake log: cannot append, the delivery goes straight to the database",
                    metadata: ["error": "\(error)"])
                return nil
            }
            intake.nextID += 1
            intake.pending.append(row)
            return row.id
        }
        if let logged { return (logged, true) }
        return (try insertNow(row), false)
    }

    /// Inserts every row accepted through the intake log and not yet in the table, in id order, in one
    /// transaction; empties the log once it holds nothing else and has grown large.
    /// - Throws: ``ActionError`` (`stateDatabase`); the rows stay accepted and the next call inserts them.
    func storeAccepted() throws {
        try storing.withLock { _ in
            let rows = intake.withLock { $0.pending }
            guard !rows.isEmpty else { return }
            try write("store accepted deliveries") { db in
                for row in rows { try Self.insertRow(row, explicitID: true, db) }
            }
            intake.withLock { intake in
                intake.pending.removeFirst(rows.count)
                if intake.pending.isEmpty, let log = intake.log, log.size > IntakeLog.truncateAbove { log.truncate() }
            }
        }
    }

    /// Inserts a row at once, after the rows accepted before it; its id is the log's next (with the log) or
    /// SQLite's (without).
    private func insertNow(_ row: DeliveryRow) throws -> Int64 {
        try storing.withLock { _ in
            let (rows, id) = intake.withLock { intake -> ([DeliveryRow], Int64?) in
                guard intake.log != nil else { return (intake.pending, nil) }
                defer { intake.nextID += 1 }
                return (intake.pending, intake.nextID)
            }
            let inserted = try write("store a delivery") { db -> Int64 in
                for pending in rows { try Self.insertRow(pending, explicitID: true, db) }
                var row = row
                row.id = id ?? 0
                try Self.insertRow(row, explicitID: id != nil, db)
                return db.lastInsertedRowID
            }
            intake.withLock { $0.pending.removeFirst(rows.count) }
            return inserted
        }
    }

    private static func insertRow(_ row: DeliveryRow, explicitID: Bool, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO deliveries (id, event_id, rule, url, method, headers, content_type, body, secret,
                    timeout_ms, state, created_at, next_attempt_at, deadline, kind, qos, retain)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            explicitID ? row.id : nil, row.eventID, row.rule, row.url, row.method, row.headers, row.contentType,
            Data(row.body), row.secret, row.timeoutMilliseconds, row.created, row.created, row.deadline, row.kind,
            row.qos, row.retain,
        ])
    }

    /// Opens the intake log of `directory` and inserts the rows it holds that the table never received.
    static func recoverIntake(directory: String, pool: DatabasePool, logger: Logger) throws -> Intake {
        let path = IntakeLog.path(in: directory)
        guard let (log, contents) = try IntakeLog.open(path: path) else {
            throw ActionError(
                .stateDatabase,
                "intake log \(path) is locked by another process: is another tagrouter running on this state directory?"
            )
        }
        if let damage = contents.damage {
            logger.warning(
                "intake log: the end of the log is unreadable and was dropped",
                metadata: [
                    "file": "\(path)", "byte_offset": "\(damage.offset)", "error": "\(damage.reason)",
                ])
        }
        do {
            let highest = try pool.read { db in
                max(
                    try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'deliveries'") ?? 0,
                    try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM deliveries") ?? 0)
            }
            let missing = contents.rows.filter { $0.id > highest }.sorted { $0.id < $1.id }
            if !missing.isEmpty {
                try pool.write { db in
                    for row in missing { try insertRow(row, explicitID: true, db) }
                }
                logger.notice(
                    "intake log: deliveries accepted before a crash were recovered",
                    metadata: ["count": "\(missing.count)", "file": "\(path)"])
            }
            log.truncate()
            return Intake(log: log, nextID: max(highest, missing.last?.id ?? 0) + 1)
        } catch {
            throw ActionError(.stateDatabase, "intake log \(path): cannot recover its deliveries: \(error)")
        }
    }
}
