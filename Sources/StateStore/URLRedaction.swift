import Foundation

/// URLs as logs and `history` show them: webhook URLs often carry tokens.
public enum URLRedaction {
    /// The URL without user info, query or fragment, safe to log.
    /// - Parameter url: any URL text.
    /// - Returns: `scheme://host[:port]/path` (`?…` when a query was removed), or `<invalid URL>`.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.scheme != nil else { return "<invalid URL>" }
        components.user = nil
        components.password = nil
        let hadQuery = components.query != nil
        components.query = nil
        components.fragment = nil
        return (components.string ?? "<invalid URL>") + (hadQuery ? "?…" : "")
    }
}
