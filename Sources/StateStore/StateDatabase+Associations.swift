public import Foundation
import GRDB

extension StateDatabase {
    /// The `aasa-cache` migration: one row per domain whose association file was ever tried.
    static let associationCacheSchema = """
        CREATE TABLE aasa_cache (
            domain TEXT PRIMARY KEY NOT NULL,
            body BLOB,
            fetched_at INTEGER,
            etag TEXT,
            last_modified TEXT,
            checked_at INTEGER NOT NULL,
            last_error TEXT
        );
        """

    /// Every cached association file, sorted by domain.
    /// - Returns: the entries.
    /// - Throws: ``StateStoreError``.
    public func cachedAssociations() throws -> [CachedAssociation] {
        try read("read the association cache") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM aasa_cache ORDER BY domain").map(Self.association)
        }
    }

    /// One domain's cache entry, nil when it was never tried.
    /// - Parameter domain: the domain.
    /// - Returns: the entry.
    /// - Throws: ``StateStoreError``.
    public func cachedAssociation(for domain: String) throws -> CachedAssociation? {
        try read("read the association cache") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM aasa_cache WHERE domain = ?", arguments: [domain])
                .map(Self.association)
        }
    }

    /// Records a good fetch: the body, its validators and the time replace the previous copy.
    /// - Parameters:
    ///   - body: the body as served.
    ///   - etag: its `ETag`.
    ///   - lastModified: its `Last-Modified`.
    ///   - domain: the domain.
    ///   - date: when it was fetched.
    /// - Throws: ``StateStoreError``.
    public func storeAssociation(
        _ body: Data, etag: String?, lastModified: String?, for domain: String, at date: Date
    ) throws {
        let time = Timestamp.milliseconds(date)
        try write("store the association file of \(domain)") { db in
            try db.execute(
                sql: """
                    INSERT INTO aasa_cache (domain, body, fetched_at, etag, last_modified, checked_at, last_error)
                    VALUES (?, ?, ?, ?, ?, ?, NULL)
                    ON CONFLICT (domain) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at,
                        etag = excluded.etag, last_modified = excluded.last_modified,
                        checked_at = excluded.checked_at, last_error = NULL
                    """, arguments: [domain, body, time, etag, lastModified, time])
        }
    }

    /// Records an answer of 304 Not Modified: the copy is confirmed as of `date`.
    /// - Parameters:
    ///   - domain: the domain.
    ///   - date: when it was confirmed.
    /// - Throws: ``StateStoreError``.
    public func confirmAssociation(for domain: String, at date: Date) throws {
        let time = Timestamp.milliseconds(date)
        try write("update the association file of \(domain)") { db in
            try db.execute(
                sql: "UPDATE aasa_cache SET fetched_at = ?, checked_at = ?, last_error = NULL WHERE domain = ?",
                arguments: [time, time, domain])
        }
    }

    /// Records a failed attempt; the last good copy, if any, stays.
    /// - Parameters:
    ///   - error: the one-line reason.
    ///   - domain: the domain.
    ///   - date: when it was tried.
    /// - Throws: ``StateStoreError``.
    public func recordAssociationFailure(_ error: String, for domain: String, at date: Date) throws {
        let time = Timestamp.milliseconds(date)
        try write("record the failed fetch of \(domain)") { db in
            try db.execute(
                sql: """
                    INSERT INTO aasa_cache (domain, checked_at, last_error) VALUES (?, ?, ?)
                    ON CONFLICT (domain) DO UPDATE SET checked_at = excluded.checked_at,
                        last_error = excluded.last_error
                    """, arguments: [domain, time, error])
        }
    }

    private static func association(_ row: Row) -> CachedAssociation {
        func date(_ column: String) -> Date? {
            (row[column] as Int64?).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        return CachedAssociation(
            domain: row["domain"], body: row["body"], fetchedAt: date("fetched_at"), etag: row["etag"],
            lastModified: row["last_modified"], checkedAt: date("checked_at") ?? Date(timeIntervalSince1970: 0),
            lastError: row["last_error"])
    }
}
