import CryptoPrimitives
import Foundation
import NDEF

/// URLs and headers as logs, `history`, `match` and `--dry-run` show them: webhook URLs carry tokens in their path
/// (Home Assistant's `/api/webhook/<id>`, Slack, Discord) as often as in their query, and headers carry
/// credentials (docs/rules.md, "What output shows of a webhook").
public enum URLRedaction {
    /// The URL as `scheme://host[:port]` and a short hash of the rest.
    ///
    /// The hash (the first 8 hex digits of SHA-256 over everything but the scheme, host and port, as written:
    /// `user:password@` if any, then the path, `?query` and `#fragment`) tells two webhooks to one receiver apart, and matches what `tagrouter match` shows
    /// for a rule, without showing a token.
    /// - Parameter url: any URL text.
    /// - Returns: `https://ha.local:8123/<3f9a1c2e>`, `https://ha.local:8123` when there is nothing more, or
    ///   `<invalid URL>`.
    public static func redacted(_ url: String) -> String {
        guard let components = URLComponents(string: url), let shown = origin(components) else {
            return "<invalid URL>"
        }
        var remainder = ""
        if let user = components.percentEncodedUser {
            remainder += user + (components.percentEncodedPassword.map { ":" + $0 } ?? "") + "@"
        }
        remainder += components.percentEncodedPath
        if let query = components.percentEncodedQuery { remainder += "?" + query }
        if let fragment = components.percentEncodedFragment { remainder += "#" + fragment }
        guard !remainder.isEmpty, remainder != "/" else { return shown }
        return shown + "/<" + HexText.string(CryptoPrimitives.sha256(Array(remainder.utf8)).prefix(4)) + ">"
    }

    /// The URL's `scheme://host[:port]` alone, or `nil` when it has no scheme or host.
    /// - Parameter url: any URL text.
    public static func origin(_ url: String) -> String? {
        URLComponents(string: url).flatMap(origin)
    }

    private static func origin(_ components: URLComponents) -> String? {
        guard let scheme = components.scheme, let host = components.percentEncodedHost else { return nil }
        return scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
    }

    /// Whether a header's value is a credential that output never shows: `Authorization`, `Proxy-Authorization`,
    /// `Cookie`, and any header whose name has `token`, `secret`, `key`, `auth`, `password`, `session` or
    /// `signature` in it (`X-API-Key`, `X-Auth-Token`, …).
    /// - Parameter name: the header name, any case.
    public static func isSensitiveHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered == "cookie" { return true }
        return ["auth", "token", "secret", "key", "password", "session", "signature"].contains {
            lowered.contains($0)
        }
    }

    /// A header's value as output shows it: `<redacted>` for a credential (``isSensitiveHeader(_:)``).
    /// - Parameters:
    ///   - name: the header name.
    ///   - value: its value.
    public static func shownValue(ofHeader name: String, _ value: String) -> String {
        isSensitiveHeader(name) ? "<redacted>" : value
    }
}
