public import Foundation
import GRDB

extension StateDatabase {
    /// Keeps a one-time console login (`tagrouter console-login`, docs/console.md): only the token's SHA-256 is
    /// stored, so the database never holds a usable link. Expired ones are deleted on the way.
    /// - Parameters:
    ///   - tokenHash: the token's SHA-256, in hex.
    ///   - expiresAt: when it stops working.
    /// - Throws: ``StateStoreError``.
    public func addConsoleLogin(tokenHash: String, expiresAt: Date) throws {
        let now = Timestamp.milliseconds(Date())
        try write("keep a console login") { db in
            try db.execute(sql: "DELETE FROM console_logins WHERE expires_at <= ?", arguments: [now])
            try db.execute(
                sql: "INSERT INTO console_logins (token_hash, expires_at) VALUES (?, ?)",
                arguments: [tokenHash, Timestamp.milliseconds(expiresAt)])
        }
    }

    /// Spends a one-time console login: true once for a token that was issued and has not expired, false after
    /// (the row is deleted as it is used, in one statement, so two uses at once cannot both succeed).
    /// - Parameters:
    ///   - tokenHash: the token's SHA-256, in hex.
    ///   - now: the time.
    /// - Returns: whether the login was valid.
    /// - Throws: ``StateStoreError``.
    public func spendConsoleLogin(tokenHash: String, now: Date = Date()) throws -> Bool {
        let now = Timestamp.milliseconds(now)
        return try write("spend a console login", isOneStatement: true) { db in
            try db.execute(
                sql: "DELETE FROM console_logins WHERE token_hash = ? AND expires_at > ?", arguments: [tokenHash, now])
            return db.changesCount == 1
        }
    }
}
