import Console
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StateStore
import Synchronization
import Testing

/// The two roles (docs/console.md, "Signing in"): the password of `passwordHash` and a one-time link sign in an
/// admin, the password of `viewerPasswordHash` a viewer, who reads every page and whose every write is refused 403
/// with nothing changed.
@Suite struct ConsoleViewerTests {
    static let admin = "correct horse"
    static let viewer = "battery staple"

    static func fixture(wakeOutbox: @escaping @Sendable () -> Void = {}) throws -> ConsoleFixture {
        let block = """
            console:
              passwordHash: "\(ConsolePassword.hash(admin, cost: 4))"
              viewerPasswordHash: "\(ConsolePassword.hash(viewer, cost: 4))"

            """
        return try ConsoleFixture(consoleBlock: block, wakeOutbox: wakeOutbox)
    }

    /// A failed webhook delivery, for the Deliveries page's forms.
    static func failedDelivery(in database: StateDatabase) throws -> Delivery {
        var delivery = Delivery(
            kind: .webhook, eventID: "e-viewer", rule: "front-door", target: "http://127.0.0.1:9/hook", method: .post,
            createdAt: Date(), retryFor: .seconds(60))
        delivery = try database.insert(delivery)
        let later = Timestamp.milliseconds(Date()) + 86_400_000
        try database.record([
            DeliveryOutcome(id: delivery.id, state: .failed, error: "refused", nextAttemptAt: later, finishedAt: later)
        ])
        return try #require(try database.deliveries(eventID: "e-viewer").first)
    }

    @Test(arguments: ConsoleRouteTests.pages + ["/deliveries/drop?id=1", "/history/export.csv"])
    func aViewerReadsEveryPageAndIsOfferedNoWriteForm(path: String) async throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        _ = try Self.failedDelivery(in: fixture.database)
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client, password: Self.viewer)
            try await client.execute(uri: path, method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok, "\(path)")
                let page = String(buffer: response.body)
                guard path != "/history/export.csv" else { return }
                #expect(page.contains("Signed in as viewer"), "\(path)")
                for action in ["/tags/enroll", "/tags/edit", "/tags/update", "/deliveries/retry", "/deliveries/drop"] {
                    #expect(!page.contains(#"action="\#(action)""#), "\(path) offers \(action)")
                }
                #expect(page.contains(#"action="/logout""#), "\(path) offers no sign-out")
                if ["/tags", "/deliveries", "/deliveries/drop?id=1"].contains(path) {
                    #expect(page.contains("Signed in as a viewer: you can read this page but not change anything"))
                }
            }
        }
    }

    @Test(arguments: ConsoleRouteTests.writes.filter { $0 != "/logout" })
    func everyWriteOfAViewerIsRefusedAndChangesNothing(path: String) async throws {
        let wakes = Atomic<Int>(0)
        let fixture = try Self.fixture { wakes.add(1, ordering: .relaxed) }
        defer { fixture.remove() }
        let delivery = try Self.failedDelivery(in: fixture.database)
        let tagsBefore = try String(contentsOfFile: fixture.folder + "/tags.yaml", encoding: .utf8)
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client, password: Self.viewer)
            let fields = [
                ("csrf", csrf), ("name", "mallory"), ("tag", "04A1B2C3D4E580"), ("edit", "remove"),
                ("id", "\(delivery.id)"), ("uid", "04A1B2C3D4E580"), ("reader", "Door"), ("confirmed", "yes"),
            ]
            try await client.execute(
                uri: path, method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form(fields)
            ) { response in
                #expect(response.status == .forbidden, "\(path)")
            }
            // The same through the header console.js sends.
            var headers = ConsoleFixture.formHeaders(cookie: cookie)
            headers[HTTPField.Name("X-CSRF-Token")!] = csrf
            try await client.execute(
                uri: path, method: .post, headers: headers, body: ConsoleFixture.form(Array(fields.dropFirst()))
            ) { response in
                #expect(response.status == .forbidden, "\(path)")
            }
        }
        #expect(try String(contentsOfFile: fixture.folder + "/tags.yaml", encoding: .utf8) == tagsBefore)
        #expect(try fixture.database.deliveries(eventID: "e-viewer") == [delivery])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: fixture.folder).sorted() == ["door.yaml", "tags.yaml"])
        #expect(wakes.load(ordering: .relaxed) == 0)
    }

    @Test func aViewerSignsOut() async throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client, password: Self.viewer)
            try await client.execute(
                uri: "/logout", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf)])
            ) { #expect($0.status == .seeOther) }
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) {
                #expect($0.status == .seeOther)
            }
        }
    }

    @Test func theAdminPasswordStillWritesAndRetryNowWakesTheOutbox() async throws {
        let wakes = Atomic<Int>(0)
        let fixture = try Self.fixture { wakes.add(1, ordering: .relaxed) }
        defer { fixture.remove() }
        let delivery = try Self.failedDelivery(in: fixture.database)
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client, password: Self.admin)
            try await client.execute(uri: "/tags", method: .get, headers: [.cookie: cookie]) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("Signed in as admin"))
                #expect(page.contains(#"action="/tags/edit""#))
            }
            try await client.execute(
                uri: "/tags/edit", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf), ("tag", "04A1B2C3D4E580"), ("edit", "disable")])
            ) { #expect($0.status == .seeOther) }
            try await client.execute(
                uri: "/deliveries/retry", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf), ("id", "\(delivery.id)")])
            ) { #expect($0.status == .seeOther) }
        }
        #expect(try String(contentsOfFile: fixture.folder + "/tags.yaml", encoding: .utf8).contains("disabled: true"))
        #expect(try fixture.database.deliveries(eventID: "e-viewer").first?.state == .pending)
        #expect(wakes.load(ordering: .relaxed) == 1)
    }

    @Test func aOneTimeLinkSignsInAnAdmin() async throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            try await client.execute(uri: "/tags", method: .get, headers: [.cookie: cookie]) { response in
                #expect(String(buffer: response.body).contains("Signed in as admin"))
            }
        }
    }

    @Test func aPasswordOfNeitherHashIsRefused() async throws {
        let fixture = try Self.fixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let response = try await ConsoleFixture.postSignIn(client, "/login", [("password", "hunter2")])
            #expect(response.status == .unauthorized)
        }
    }
}

/// The sign-in forms' CSRF defence (docs/console.md, "Safe by default"): the sign-in page's pre-session cookie
/// and the field made for it, both required before the password or the link is looked at.
@Suite struct ConsoleLoginCSRFTests {
    @Test func theSignInPageSetsAStrictHttpOnlyCookieForTheSignInPaths() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            try await client.execute(uri: "/login?token=abc", method: .get) { response in
                let cookie = try #require(
                    response.headers[values: .setCookie].first { $0.hasPrefix("tagrouter_login=") })
                let attributes = Set(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/login", "Max-Age=600"]))
                #expect(!attributes.contains("Secure"))
                let value = cookie.dropFirst("tagrouter_login=".count).prefix { $0 != ";" }
                #expect(value.count == 64)
                let page = String(buffer: response.body)
                #expect(page.contains(#"<input type="hidden" name="login" value=""#))
                #expect(!page.contains(String(value)), "the cookie's value is in the page")
            }
        }
    }

    enum Forgery: String, CaseIterable {
        case noCookie, noField, fieldOfAnotherCookie, tamperedField
    }

    @Test(arguments: Forgery.allCases)
    func aSignInWithoutTheCookieAndItsFieldIsRefusedBeforeTheLinkIsSpent(forgery: Forgery) async throws {
        let fixture = try ConsoleFixture(loginLimiter: (2, 30))
        defer { fixture.remove() }
        try await fixture.test { client in
            let token = try ConsoleLogin.issue(in: fixture.database)
            let (cookie, field) = try await ConsoleFixture.loginForm(client)
            let (_, otherField) = try await ConsoleFixture.loginForm(client)
            var sent: (cookie: String?, field: String?) = (cookie, field)
            switch forgery {
            case .noCookie: sent.cookie = nil
            case .noField: sent.field = nil
            case .fieldOfAnotherCookie: sent.field = otherField
            case .tamperedField: sent.field = String(field.dropLast()) + (field.last == "0" ? "1" : "0")
            }
            // More refusals than the rate limit allows: a refusal here is not counted as an attempt.
            for _ in 0..<3 {
                try await client.execute(
                    uri: "/login/link", method: .post, headers: ConsoleFixture.formHeaders(cookie: sent.cookie),
                    body: ConsoleFixture.form([("token", token)] + (sent.field.map { [("login", $0)] } ?? []))
                ) { response in
                    #expect(response.status == .forbidden, "\(forgery)")
                    #expect(!response.headers[values: .setCookie].contains { $0.hasPrefix("tagrouter_session=") })
                    #expect(String(buffer: response.body).contains("This sign-in form has expired"))
                }
            }
            // The link was not spent, and the limit not reached: the page's own form signs in with it.
            let response = try await ConsoleFixture.postSignIn(client, "/login/link", [("token", token)])
            #expect(response.status == .seeOther)
            let setCookies = response.headers[values: .setCookie]
            #expect(setCookies.contains { $0.hasPrefix("tagrouter_session=") })
            #expect(setCookies.contains { $0.hasPrefix("tagrouter_login=;") && $0.contains("Max-Age=0") })
        }
    }

    @Test func aPasswordSignInNeedsTheCookieAndItsFieldToo() async throws {
        let hash = ConsolePassword.hash("correct horse", cost: 4)
        let fixture = try ConsoleFixture(consoleBlock: "console: {passwordHash: \"\(hash)\"}\n")
        defer { fixture.remove() }
        try await fixture.test { client in
            try await client.execute(
                uri: "/login", method: .post, headers: ConsoleFixture.formHeaders(cookie: nil),
                body: ConsoleFixture.form([("password", "correct horse")])
            ) { #expect($0.status == .forbidden) }
            let (cookie, _) = try await ConsoleFixture.loginForm(client)
            try await client.execute(
                uri: "/login", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("login", "4102444800-00"), ("password", "correct horse")])
            ) { #expect($0.status == .forbidden) }
            let good = try await ConsoleFixture.postSignIn(client, "/login", [("password", "correct horse")])
            #expect(good.status == .seeOther)
        }
    }
}
