import GRDB

extension StateDatabase {
    /// Pending MQTT publications with a row id above `id`, oldest first.
    /// - Parameters:
    ///   - id: the highest id already handed to the broker.
    ///   - limit: at most this many.
    /// - Returns: the publications.
    /// - Throws: ``StateStoreError``.
    public func pendingPublications(after id: Int64, limit: Int) throws -> [Delivery] {
        try read("read pending mqtt publications") { db in
            try DeliveryRecord.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT * FROM deliveries WHERE kind = 'mqtt' AND state = 'pending' AND id > ? ORDER BY id LIMIT ?"
                ),
                arguments: [id, limit]
            ).map(\.delivery)
        }
    }

    /// Pending MQTT publications whose `retryFor` has passed at `now`.
    /// - Parameter now: milliseconds since 1970.
    /// - Returns: at most 1,000 publications, oldest first.
    /// - Throws: ``StateStoreError``.
    public func expiredPublications(now: Int64) throws -> [Delivery] {
        try read("read expired mqtt publications") { db in
            try DeliveryRecord.fetchAll(
                db,
                sql: """
                    SELECT * FROM deliveries WHERE kind = 'mqtt' AND state = 'pending' AND deadline <= ?
                    ORDER BY id LIMIT 1000
                    """,
                arguments: [now]
            ).map(\.delivery)
        }
    }
}

extension StateDatabase {
    /// The earliest `retryFor` deadline among pending MQTT publications, if any: when the publisher next has one
    /// to give up.
    /// - Returns: milliseconds since 1970.
    /// - Throws: ``StateStoreError``.
    public func nextPublicationDeadline() throws -> Int64? {
        try read("read pending mqtt publications") { db in
            try Int64.fetchOne(
                db.cachedStatement(
                    sql: "SELECT MIN(deadline) FROM deliveries WHERE kind = 'mqtt' AND state = 'pending'"))
        }
    }
}
