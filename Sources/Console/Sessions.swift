import Foundation
import Synchronization

/// What a session may do (docs/console.md, "Signing in").
enum Role: String, Sendable, Hashable {
    /// Reads and changes everything the console shows: a one-time link, or the password of `passwordHash`.
    case admin
    /// Reads every page and changes nothing: the password of `viewerPasswordHash`.
    case viewer
}

/// A signed-in browser: its cookie's id, its CSRF token, its role, when it ends (docs/console.md, "Safe by
/// default").
struct Session: Sendable, Hashable {
    /// The cookie's value: 256 random bits.
    var id: String
    /// The token every write must carry (a hidden form field, or `X-CSRF-Token` from console.js): 256 random bits.
    var csrf: String
    /// What it may do.
    var role: Role
    /// When the session ends.
    var expires: Date
    /// A one-line message for the next page shown (what the last write did).
    var notice: String?
    /// Whether that message tells of a failure.
    var noticeIsProblem = false
}

/// The console's sessions, in the router's memory only: a restart signs everyone out.
final class Sessions: Sendable {
    /// The cookie's name.
    static let cookieName = "tagrouter_session"
    let lifetime: TimeInterval
    let sessions = Mutex<[String: Session]>([:])

    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// Starts a session.
    /// - Parameters:
    ///   - role: what it may do.
    ///   - now: the time.
    func start(_ role: Role, now: Date = Date()) -> Session {
        let session = Session(id: Self.randomToken(), csrf: Self.randomToken(), role: role, expires: now + lifetime)
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            sessions[session.id] = session
        }
        return session
    }

    /// The session of a cookie value, if it is current.
    func session(_ id: String?, now: Date = Date()) -> Session? {
        guard let id else { return nil }
        return sessions.withLock { sessions in
            guard let session = sessions[id] else { return nil }
            guard session.expires > now else {
                sessions[id] = nil
                return nil
            }
            return session
        }
    }

    /// Leaves a message for the session's next page.
    func notify(_ id: String, _ notice: String, isProblem: Bool = false) {
        sessions.withLock {
            $0[id]?.notice = notice
            $0[id]?.noticeIsProblem = isProblem
        }
    }

    /// Takes the session's message, if any.
    func takeNotice(_ id: String) -> (text: String, isProblem: Bool)? {
        sessions.withLock { sessions in
            guard let notice = sessions[id]?.notice else { return nil }
            sessions[id]?.notice = nil
            return (notice, sessions[id]?.noticeIsProblem ?? false)
        }
    }

    /// Ends a session.
    func end(_ id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// 256 random bits from the system's generator (getrandom(2)), as 64 hex digits.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// Sign-in attempts counted per client address and in all, over a sliding minute: past either limit an attempt is
/// refused (429) before the password or link is looked at (docs/console.md, "Safe by default").
final class LoginLimiter: Sendable {
    /// Attempts a minute from one address.
    let perAddress: Int
    /// Attempts a minute in all.
    let overall: Int
    let attempts = Mutex<[(address: String, time: Date)]>([])

    init(perAddress: Int = 5, overall: Int = 30) {
        self.perAddress = perAddress
        self.overall = overall
    }

    /// Counts an attempt; false when it is over a limit (and then it is not counted).
    func admit(_ address: String, now: Date = Date()) -> Bool {
        attempts.withLock { attempts in
            attempts.removeAll { now.timeIntervalSince($0.time) >= 60 }
            guard attempts.count < overall, attempts.count(where: { $0.address == address }) < perAddress else {
                return false
            }
            attempts.append((address, now))
            return true
        }
    }
}
