import Crypto
public import Foundation
public import StateStore

/// The one-time sign-in links of `tagrouter console-login` (docs/console.md, "Signing in"): a random token whose
/// SHA-256 alone is kept in the state database, valid for ``lifetime`` and usable once; and the console's address,
/// which the running router writes in the state directory so that the link can be printed whole.
public enum ConsoleLogin {
    /// How long a link works.
    public static let lifetime: TimeInterval = 600
    /// The file in the state directory that holds the running console's URL.
    public static let urlFileName = "console-url"

    /// Issues a one-time login.
    /// - Parameters:
    ///   - database: the router's state database.
    ///   - now: the time.
    /// - Returns: the token, to put in the link.
    /// - Throws: ``StateStore/StateStoreError`` when the database cannot be written.
    public static func issue(in database: StateDatabase, now: Date = Date()) throws -> String {
        let token = Sessions.randomToken()
        try database.addConsoleLogin(tokenHash: hash(token), expiresAt: now + lifetime)
        return token
    }

    /// The link for a token: `URL/login?token=TOKEN`.
    /// - Parameters:
    ///   - token: the token.
    ///   - consoleURL: the console's URL.
    public static func link(token: String, consoleURL: String) -> String {
        "\(consoleURL)/login?token=\(token)"
    }

    /// The SHA-256 of a token, in hex: what the database keeps.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The console URL the router serving a state directory wrote; nil when it has not (no console running).
    /// - Parameter stateDirectory: the state directory.
    public static func consoleURL(in stateDirectory: String) -> String? {
        guard let data = FileManager.default.contents(atPath: urlPath(in: stateDirectory)),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let url = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return url.isEmpty ? nil : url
    }

    /// Writes the console's URL in the state directory (replaced atomically).
    static func writeURL(_ url: String, in stateDirectory: String) throws {
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: urlPath(in: stateDirectory)), options: .atomic)
    }

    /// Removes the URL file (the console stopped).
    static func removeURL(in stateDirectory: String) {
        try? FileManager.default.removeItem(atPath: urlPath(in: stateDirectory))
    }

    static func urlPath(in stateDirectory: String) -> String {
        (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + urlFileName
    }
}
