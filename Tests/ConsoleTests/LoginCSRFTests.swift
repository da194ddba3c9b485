import Foundation
import Testing

@testable import Console

/// The sign-in forms' CSRF field (`Sources/Console/LoginCSRF.swift`, docs/console.md, "Safe by default"), as a value:
/// bound to its cookie, refused once expired, refused under another process's key.
@Suite struct LoginCSRFTests {
    static let cookie = String(repeating: "ab", count: 32)
    static let otherCookie = String(repeating: "cd", count: 32)

    @Test func aFieldIsAcceptedForItsCookieUntilItExpires() {
        let csrf = LoginCSRF()
        let issued = Date(timeIntervalSince1970: 1_800_000_000)
        let field = csrf.field(for: Self.cookie, now: issued)
        #expect(csrf.accepts(cookie: Self.cookie, field: field, now: issued))
        #expect(csrf.accepts(cookie: Self.cookie, field: field, now: issued + Double(LoginCSRF.lifetime)))
        #expect(!csrf.accepts(cookie: Self.cookie, field: field, now: issued + Double(LoginCSRF.lifetime) + 1))
    }

    @Test func aFieldIsRefusedForAnotherCookieAKeyOfAnotherProcessOrAMissingPart() {
        let csrf = LoginCSRF()
        let now = Date()
        let field = csrf.field(for: Self.cookie, now: now)
        #expect(!csrf.accepts(cookie: Self.otherCookie, field: field, now: now))
        #expect(!LoginCSRF().accepts(cookie: Self.cookie, field: field, now: now))
        #expect(!csrf.accepts(cookie: nil, field: field, now: now))
        #expect(!csrf.accepts(cookie: Self.cookie, field: nil, now: now))
        #expect(!csrf.accepts(cookie: "not-hex", field: csrf.field(for: "not-hex", now: now), now: now))
        let later = field.split(separator: "-").first.map { "\(Int($0)! + 3600)" } ?? ""
        let moved = later + field.drop { $0 != "-" }
        #expect(!csrf.accepts(cookie: Self.cookie, field: moved, now: now))
    }
}
