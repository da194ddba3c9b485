public import Foundation
import GRDB

extension StateDatabase {
    /// The deliveries that wait or failed, newest first: the console's Deliveries page (docs/console.md).
    /// - Parameter limit: at most this many.
    /// - Returns: the deliveries.
    /// - Throws: ``StateStoreError``.
    public func unfinishedOrFailedDeliveries(limit: Int = 200) throws -> [Delivery] {
        try read("read deliveries") { db in
            try DeliveryRecord.fetchAll(
                db,
                sql: "SELECT * FROM deliveries WHERE state <> 'delivered' ORDER BY created_at DESC, id DESC LIMIT ?",
                arguments: [max(0, limit)]
            ).map(\.delivery)
        }
    }

    /// Makes a waiting or failed delivery due now: a failed one waits again, with as long to succeed as it had
    /// the first time (its deadline moved as far past now as it was past its creation).
    /// - Parameters:
    ///   - id: the delivery's id.
    ///   - now: the time, in milliseconds since 1970.
    /// - Returns: whether there was such a delivery (not delivered).
    /// - Throws: ``StateStoreError``.
    public func retryDeliveryNow(id: Int64, now: Int64 = Timestamp.milliseconds(Date())) throws -> Bool {
        try write("retry a delivery", isOneStatement: true) { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET next_attempt_at = ?1,
                        deadline = CASE WHEN state = 'failed' THEN ?1 + (deadline - created_at) ELSE deadline END,
                        finished_at = NULL, state = 'pending'
                    WHERE id = ?2 AND state <> 'delivered'
                    """, arguments: [now, id])
            return db.changesCount == 1
        }
    }

    /// Drops a waiting or failed delivery: it is deleted and never tried again.
    /// - Parameter id: the delivery's id.
    /// - Returns: whether there was such a delivery (not delivered).
    /// - Throws: ``StateStoreError``.
    public func dropDelivery(id: Int64) throws -> Bool {
        try write("drop a delivery", isOneStatement: true) { db in
            try db.execute(sql: "DELETE FROM deliveries WHERE id = ? AND state <> 'delivered'", arguments: [id])
            return db.changesCount == 1
        }
    }
}
