import Crypto
import Foundation

/// The sign-in forms' CSRF defence (docs/console.md, "Safe by default"): there is no session yet to hold a token,
/// so the sign-in page sets a pre-session cookie (256 random bits, `HttpOnly; SameSite=Strict; Path=/login`,
/// `Secure` over TLS, for ``lifetime``) and puts in its forms a field bound to it: the time it stops being
/// accepted and an HMAC-SHA256 of that time and the cookie's value under a key drawn when the process starts.
/// `POST /login` and `POST /login/link` are answered 403 unless the request carries the cookie and a field made for
/// it that has not expired; a page on another site can neither read the cookie nor make the field.
struct LoginCSRF: Sendable {
    /// The cookie's name.
    static let cookieName = "tagrouter_login"
    /// The form field's name.
    static let fieldName = "login"
    /// How long a sign-in page's form is accepted, in seconds.
    static let lifetime = 600

    /// The HMAC key, for this process only: a restart makes the forms open at the time stale.
    let key = SymmetricKey(size: .bits256)

    /// The field for a cookie's value, accepted until `now` + ``lifetime``.
    /// - Parameters:
    ///   - cookie: the cookie's value.
    ///   - now: the time.
    /// - Returns: `EXPIRY-HMAC`, the expiry in seconds since 1970 and the HMAC in hex.
    func field(for cookie: String, now: Date = Date()) -> String {
        let expiry = Int(now.timeIntervalSince1970) + Self.lifetime
        return "\(expiry)-\(mac(expiry: expiry, cookie: cookie))"
    }

    /// Whether a sign-in request's field was made for its cookie and has not expired; compared in constant time.
    /// - Parameters:
    ///   - cookie: the request's cookie value, if any.
    ///   - field: the form's field, if any.
    ///   - now: the time.
    func accepts(cookie: String?, field: String?, now: Date = Date()) -> Bool {
        guard let cookie, Self.isWellFormed(cookie), let field, let dash = field.firstIndex(of: "-"),
            let expiry = Int(field[..<dash]), expiry >= Int(now.timeIntervalSince1970)
        else { return false }
        return WebConsole.constantTimeEqual(
            String(field[field.index(after: dash)...]), mac(expiry: expiry, cookie: cookie))
    }

    /// Whether a cookie value is one this console could have set: 64 hex digits (``Sessions/randomToken()``).
    static func isWellFormed(_ cookie: String) -> Bool {
        cookie.utf8.count == 64 && cookie.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private func mac(expiry: Int, cookie: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data("\(expiry).\(cookie)".utf8), using: key).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
