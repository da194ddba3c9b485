import HummingbirdBcrypt

/// The console password's hash (`tagrouter console-password`, docs/console.md): bcrypt, through hummingbird-auth.
public enum ConsolePassword {
    /// The bcrypt work factor: 2^12 rounds, about a quarter of a second on a small machine.
    public static let cost: UInt8 = 12

    /// Hashes a password for `console: { passwordHash: … }`.
    /// - Parameters:
    ///   - password: the password.
    ///   - cost: the work factor.
    /// - Returns: the hash, `$2b$12$…`.
    public static func hash(_ password: String, cost: UInt8 = cost) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// Whether a password matches a hash.
    /// - Parameters:
    ///   - password: the password.
    ///   - hash: the hash.
    public static func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}
