public import Foundation
import GRDB
import Synchronization
import WebhookRetry

/// A QoS 1 publication waiting in the outbox, as the publisher hands it to the broker.
struct PendingPublication: Sendable, Hashable {
    var id: Int64
    var eventID: String
    var rule: String
    var topic: String
    var payload: [UInt8]
    var qos: Int
    var retain: Bool
    var deadline: Int64
}

extension Outbox {
    /// The `mqtt-outbox` migration: the deliveries table learns a kind (`webhook`, `mqtt`) and the MQTT
    /// fields. An MQTT row keeps its topic in `url`, `MQTT` in `method` and its payload in `body`.
    static func migrateMQTT(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook';
                ALTER TABLE deliveries ADD COLUMN qos INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE deliveries ADD COLUMN retain INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX deliveries_mqtt_pending ON deliveries (id) WHERE state = 'pending' AND kind = 'mqtt';
                """
        )
    }

    /// Writes a QoS 1 publication durably (before it is handed to the broker).
    /// - Parameters:
    ///   - publication: the rendered, validated publication.
    ///   - now: the acceptance time.
    /// - Returns: the row id.
    /// - Throws: ``ActionError`` (`invalidRequest` or `stateDatabase`).
    @discardableResult
    public func insert(_ publication: MQTTPublication, now: Date = Date()) throws -> Int64 {
        try publication.validate()
        let created = Timestamp.milliseconds(now)
        let (id, owesStore) = try accept(
            DeliveryRow(
                id: 0, eventID: publication.eventID, rule: publication.rule, url: publication.topic, method: "MQTT",
                headers: "[]", contentType: "", body: publication.payload, secret: nil, timeoutMilliseconds: 0,
                created: created, deadline: created + max(0, publication.retryFor.milliseconds), kind: "mqtt",
                qos: Int64(publication.qos), retain: publication.retain))
        // The publisher reads publications from the table: insert it now (it is durable already).
        if owesStore { storeAcceptedOrLog() }
        return id
    }

    /// Pending MQTT publications with a row id above `id`, oldest first.
    func pendingPublications(after id: Int64, limit: Int) throws -> [PendingPublication] {
        try read("read pending mqtt publications") { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id, event_id, rule, url, body, qos, retain, deadline FROM deliveries
                        WHERE kind = 'mqtt' AND state = 'pending' AND id > ? ORDER BY id LIMIT ?
                        """
                ),
                arguments: [id, limit]
            ).map { row in
                let body: Data = row["body"] ?? Data()
                return PendingPublication(
                    id: row["id"], eventID: row["event_id"], rule: row["rule"], topic: row["url"],
                    payload: Array(body), qos: row["qos"], retain: row["retain"], deadline: row["deadline"])
            }
        }
    }

    /// Marks publications the broker acknowledged (PUBACK) as delivered, in one transaction.
    func markPublished(_ ids: [Int64], now: Int64) throws {
        guard !ids.isEmpty else { return }
        let shouldPrune = writesSincePrune.add(ids.count, ordering: .relaxed).newValue >= 256
        if shouldPrune { writesSincePrune.store(0, ordering: .relaxed) }
        let retention = self.retention
        try write("record mqtt acknowledgements") { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, last_error = NULL,
                        finished_at = ?, next_attempt_at = ? WHERE id = ? AND state = 'pending'
                    """
            )
            for id in ids { try statement.execute(arguments: [now, now, id]) }
            if shouldPrune { try Self.pruneDeliveries(db, keeping: retention) }
        }
    }

    /// Marks a publication failed with a reason (the broker refused it, or its `retryFor` passed).
    func markPublicationFailed(_ id: Int64, reason: String, now: Int64) throws {
        try write("record a failed mqtt publication") { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = 'failed', attempts = attempts + 1, last_error = ?, finished_at = ?
                    WHERE id = ? AND state = 'pending'
                    """,
                arguments: [reason, now, id])
        }
    }

    /// Pending MQTT publications whose `retryFor` has passed at `now`.
    func expiredPublications(now: Int64) throws -> [PendingPublication] {
        try read("read expired mqtt publications") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, event_id, rule, url, deadline FROM deliveries
                    WHERE kind = 'mqtt' AND state = 'pending' AND deadline <= ? ORDER BY id LIMIT 1000
                    """,
                arguments: [now]
            ).map { row in
                PendingPublication(
                    id: row["id"], eventID: row["event_id"], rule: row["rule"], topic: row["url"], payload: [], qos: 1,
                    retain: false, deadline: row["deadline"])
            }
        }
    }

    /// How many deliveries wait in the outbox, by kind (`webhook`, `mqtt`; a kind with none is 0).
    /// - Returns: the counts.
    /// - Throws: ``ActionError`` (`stateDatabase`) if the state database cannot be read.
    public func pendingCounts() throws -> [String: Int] {
        try read("count pending deliveries") { db in
            var counts = ["webhook": 0, "mqtt": 0]
            for row in try Row.fetchAll(
                db, sql: "SELECT kind, COUNT(*) AS n FROM deliveries WHERE state = 'pending' GROUP BY kind")
            {
                counts[row["kind"]] = row["n"]
            }
            return counts
        }
    }
}
