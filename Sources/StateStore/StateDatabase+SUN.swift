import Foundation
import GRDB

extension StateDatabase {
    /// Accepts a verified SUN message's read counter if it is above the highest one accepted for the same key set
    /// and UID, and records it (docs/doors.md, "SUN: tags that prove themselves"): one transaction, so two taps
    /// of the same URL never both pass.
    /// - Parameters:
    ///   - keySetID: the key set that verified the message.
    ///   - uid: the UID the message names.
    ///   - counter: its read counter.
    /// - Returns: `true` when the counter is new; `false` for a replay.
    /// - Throws: ``StateStoreError``.
    public func acceptSUNCounter(keySetID: String, uid: String, counter: UInt32) throws -> Bool {
        try write("record a SUN counter") { db in
            if let highest = try Self.highestSUNCounter(db, keySetID: keySetID, uid: uid), counter <= highest {
                return false
            }
            try db.execute(
                sql: """
                    INSERT INTO sun_counters (key_set, uid, counter, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (key_set, uid) DO UPDATE SET counter = excluded.counter, updated_at = excluded.updated_at
                    """,
                arguments: [keySetID, uid, Int64(counter), Timestamp.milliseconds(Date())])
            return true
        }
    }

    /// The highest SUN read counter accepted for a key set and UID, for `tagrouter match`.
    /// - Parameters:
    ///   - keySetID: the key set.
    ///   - uid: the UID.
    /// - Returns: the counter, or nil when none was accepted.
    /// - Throws: ``StateStoreError``.
    public func highestSUNCounter(keySetID: String, uid: String) throws -> UInt32? {
        try read("read a SUN counter") { db in try Self.highestSUNCounter(db, keySetID: keySetID, uid: uid) }
    }

    private static func highestSUNCounter(_ db: Database, keySetID: String, uid: String) throws -> UInt32? {
        try Int64.fetchOne(
            db, sql: "SELECT counter FROM sun_counters WHERE key_set = ? AND uid = ?", arguments: [keySetID, uid]
        ).map { UInt32(clamping: $0) }
    }
}
