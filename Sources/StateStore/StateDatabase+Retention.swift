public import Foundation
import GRDB

extension StateDatabase {
    /// What one prune batch deleted (``pruneTaps(_:now:batchSize:)``).
    public struct PruneBatch: Sendable, Hashable {
        /// Taps deleted for being older than the retention's age.
        public var expired: Int
        /// Taps deleted, oldest first, because the database's pages in use exceeded the retention's size.
        public var overSize: Int

        /// Taps deleted in all.
        public var deleted: Int { expired + overSize }

        /// Creates a result.
        /// - Parameters:
        ///   - expired: taps deleted for their age.
        ///   - overSize: taps deleted for the size.
        public init(expired: Int, overSize: Int) {
            self.expired = expired
            self.overSize = overSize
        }
    }

    /// Deletes one batch of the oldest taps the retention no longer keeps, in one short write transaction, so a
    /// tap waiting to be recorded waits for one batch at the most: first those older than
    /// ``HistoryRetention/maxAge``, then, when none is, the oldest while the pages in use (``usedBytes()``)
    /// exceed ``HistoryRetention/maxBytes``. Both deletions walk the `taps_time` index. Call it again until it
    /// deletes nothing (the router's history pruner does, off the tap path).
    /// - Parameters:
    ///   - retention: what to keep.
    ///   - now: the time ages are measured from.
    ///   - batchSize: the most taps one call deletes.
    /// - Returns: what was deleted; nothing when the history is within its retention.
    /// - Throws: ``StateStoreError``.
    @discardableResult
    public func pruneTaps(_ retention: HistoryRetention, now: Date, batchSize: Int = 500) throws -> PruneBatch {
        let (seconds, attoseconds) = retention.maxAge.components
        let ageMilliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let cutoff = Timestamp.milliseconds(now) - ageMilliseconds
        let limit = max(1, batchSize)
        return try write("prune the tap history") { db in
            try db.execute(
                sql: "DELETE FROM taps WHERE id IN (SELECT id FROM taps WHERE time < ? ORDER BY time, id LIMIT ?)",
                arguments: [cutoff, limit])
            let expired = db.changesCount
            if expired > 0 { return PruneBatch(expired: expired, overSize: 0) }
            guard try Self.usedBytes(db) > retention.maxBytes else { return PruneBatch(expired: 0, overSize: 0) }
            try db.execute(
                sql: "DELETE FROM taps WHERE id IN (SELECT id FROM taps ORDER BY time, id LIMIT ?)", arguments: [limit])
            return PruneBatch(expired: 0, overSize: db.changesCount)
        }
    }

    /// The bytes of the database's pages in use: its pages, less those on SQLite's free list, times the page size.
    /// Pruned rows free pages that later rows reuse, so the file stops growing at about this size without
    /// shrinking.
    /// - Returns: the bytes in use.
    /// - Throws: ``StateStoreError``.
    public func usedBytes() throws -> Int64 {
        try read("measure the database") { db in try Self.usedBytes(db) }
    }

    /// How many taps the history holds.
    /// - Returns: the count.
    /// - Throws: ``StateStoreError``.
    public func tapCount() throws -> Int {
        try read("count the taps") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM taps") ?? 0 }
    }

    static func usedBytes(_ db: Database) throws -> Int64 {
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        return (pages - free) * size
    }
}
