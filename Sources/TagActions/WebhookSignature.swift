import Crypto
import NDEF

/// The webhook signature: `sha256=` and the hex HMAC-SHA256 of `"<timestamp>.<body>"` keyed with the secret.
public enum WebhookSignature {
    /// The value of `X-TagRouter-Signature`.
    /// - Parameters:
    ///   - body: the exact body bytes sent.
    ///   - timestamp: the unix seconds sent in `X-TagRouter-Timestamp` (the time of this attempt).
    ///   - secret: the rule's secret, as UTF-8.
    /// - Returns: `sha256=<64 hex digits>`.
    public static func sign(body: [UInt8], timestamp: Int64, secret: String) -> String {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + HexText.string(Array(code))
    }
}
