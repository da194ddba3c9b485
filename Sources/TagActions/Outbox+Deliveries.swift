public import Foundation
import GRDB
import Logging
import Synchronization
import WebhookRetry

/// A pending delivery as the worker needs it for one attempt.
struct PendingDelivery: Sendable, Hashable {
    var id: Int64
    var eventID: String
    var rule: String
    var url: String
    var method: String
    var headers: [WebhookRequest.Header]
    var contentType: String
    var body: [UInt8]
    var secret: String?
    var timeoutMilliseconds: Int64
    var attempts: Int
    var deadline: Int64
}

/// What one attempt changes in a delivery's row.
struct DeliveryUpdate: Sendable, Hashable {
    enum State: String, Sendable {
        case pending, delivered, failed
    }

    var id: Int64
    var state: State
    var status: Int?
    var error: String?
    var nextAttemptAt: Int64
    var finishedAt: Int64?
}

extension Outbox {
    /// Writes a delivery durably, due at once, and inserts it into the table. Call ``OutboxWorker/enqueue(_:)``
    /// to also start its first attempt.
    /// - Parameters:
    ///   - request: the rendered, validated request.
    ///   - now: the acceptance time.
    /// - Returns: the delivery's row id.
    /// - Throws: ``ActionError`` (`invalidRequest` or `stateDatabase`).
    @discardableResult
    public func insert(_ request: WebhookRequest, now: Date = Date()) throws -> Int64 {
        let (delivery, owesStore) = try accept(request, now: now)
        if owesStore { storeAcceptedOrLog() }
        return delivery.id
    }

    /// Accepts a delivery (``accept(_:)``): durable when this returns, in the table once ``storeAccepted()`` ran
    /// if `owesStore`.
    /// - Parameters:
    ///   - request: the rendered request; validated here.
    ///   - now: the acceptance time.
    /// - Returns: the delivery as the worker sends it (its row id included), and whether ``storeAccepted()`` is
    ///   owed.
    /// - Throws: ``ActionError`` (`invalidRequest` or `stateDatabase`).
    func accept(_ request: WebhookRequest, now: Date) throws -> (delivery: PendingDelivery, owesStore: Bool) {
        var (row, delivery) = try prepare(request, now: now)
        let (id, owesStore) = try accept(row)
        delivery.id = id
        return (delivery, owesStore)
    }

    /// Validates a request and turns it into the row the outbox stores and the delivery the worker sends, both
    /// without an id yet (``accept(_:)`` gives it).
    /// - Parameters:
    ///   - request: the rendered request.
    ///   - now: the acceptance time.
    /// - Returns: the row and the delivery.
    /// - Throws: ``ActionError`` (`invalidRequest`).
    func prepare(_ request: WebhookRequest, now: Date) throws -> (row: DeliveryRow, delivery: PendingDelivery) {
        try request.validate()
        let created = Timestamp.milliseconds(now)
        let row = DeliveryRow(
            id: 0, eventID: request.eventID, rule: request.rule, url: request.url, method: request.method,
            headers: Self.headersJSON(request.headers), contentType: request.contentType, body: request.body,
            secret: request.secret, timeoutMilliseconds: max(1, request.timeout.milliseconds), created: created,
            deadline: created + max(0, request.retryFor.milliseconds), kind: "webhook", qos: 0, retain: false)
        let delivery = PendingDelivery(
            id: 0, eventID: row.eventID, rule: row.rule, url: row.url, method: row.method, headers: request.headers,
            contentType: row.contentType, body: row.body, secret: row.secret,
            timeoutMilliseconds: row.timeoutMilliseconds, attempts: 0, deadline: row.deadline)
        return (row, delivery)
    }

    /// ``storeAccepted()``, logging a failure: the rows stay accepted (in the intake log) and the next call, or
    /// the next start, inserts them.
    func storeAcceptedOrLog() {
        do {
            try storeAccepted()
        } catch {
            logger.error(
                "outbox: accepted deliveries not yet in the state database, retrying", metadata: ["error": "\(error)"])
        }
    }

    /// The headers as the `headers` column holds them, `[{"name":…,"value":…},…]`, written without JSONEncoder.
    static func headersJSON(_ headers: [WebhookRequest.Header]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, header) in headers.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendObject([("name", .string(header.name)), ("value", .string(header.value))], to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Pending deliveries due at `now`, oldest first, skipping `excluded` (in flight or awaiting their update).
    func due(now: Int64, limit: Int, excluding excluded: Set<Int64>) throws -> [PendingDelivery] {
        try read("read pending deliveries") { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT id, event_id, rule, url, method, headers, content_type, body, secret, timeout_ms,
                            attempts, deadline
                        FROM deliveries WHERE state = 'pending' AND kind = 'webhook' AND next_attempt_at <= ?
                        ORDER BY next_attempt_at, id LIMIT ?
                        """
                ),
                arguments: [now, limit + excluded.count]
            )
            let decoder = JSONDecoder()
            var due: [PendingDelivery] = []
            while due.count < limit, let row = try rows.next() {
                let id: Int64 = row["id"]
                guard !excluded.contains(id) else { continue }
                let headerText: String = row["headers"]
                let body: Data = row["body"] ?? Data()
                due.append(
                    PendingDelivery(
                        id: id,
                        eventID: row["event_id"],
                        rule: row["rule"],
                        url: row["url"],
                        method: row["method"],
                        headers: (try? decoder.decode([WebhookRequest.Header].self, from: Data(headerText.utf8))) ?? [],
                        contentType: row["content_type"],
                        body: Array(body),
                        secret: row["secret"],
                        timeoutMilliseconds: row["timeout_ms"],
                        attempts: row["attempts"],
                        deadline: row["deadline"]
                    )
                )
            }
            return due
        }
    }

    /// How many deliveries of every kind wait in the outbox (``pendingCounts()`` has them by kind).
    /// - Returns: the number of pending deliveries.
    /// - Throws: ``ActionError`` (`stateDatabase`) if the state database cannot be read.
    public func pendingCount() throws -> Int {
        // Accepted rows not yet inserted are pending too; `storing` keeps them from being counted twice (in the
        // table and in memory) while an insert runs.
        try storing.withLock { _ in
            let accepted = intake.withLock { $0.pending.count }
            return try accepted
                + read("count pending deliveries") { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deliveries WHERE state = 'pending'") ?? 0
                }
        }
    }

    /// The earliest `next_attempt_at` among pending deliveries not in `excluded`, if any.
    func nextAttemptTime(excluding excluded: Set<Int64>) throws -> Int64? {
        try read("read pending deliveries") { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT id, next_attempt_at FROM deliveries WHERE state = 'pending' AND kind = 'webhook' "
                        + "ORDER BY next_attempt_at, id LIMIT ?"
                ),
                arguments: [excluded.count + 1]
            )
            return rows.first { !excluded.contains($0["id"]) }?["next_attempt_at"]
        }
    }

    /// Applies the outcomes of many attempts in one transaction, then prunes old finished rows now and then.
    func apply(_ updates: [DeliveryUpdate]) throws {
        guard !updates.isEmpty else { return }
        // The rows updated must be in the table: first attempts start before their row is inserted.
        try storeAccepted()
        let finished = updates.filter { $0.state != .pending }.count
        let shouldPrune = finished > 0 && writesSincePrune.add(finished, ordering: .relaxed).newValue >= 256
        if shouldPrune { writesSincePrune.store(0, ordering: .relaxed) }
        let retention = self.retention
        try write("record webhook attempts") { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = ?, attempts = attempts + 1, last_status = ?, last_error = ?,
                        next_attempt_at = ?, finished_at = ? WHERE id = ?
                    """
            )
            for update in updates {
                try statement.execute(arguments: [
                    update.state.rawValue, update.status, update.error, update.nextAttemptAt, update.finishedAt,
                    update.id,
                ])
            }
            if shouldPrune { try Self.pruneDeliveries(db, keeping: retention) }
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
