import Console
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RouterCommands
import StateStore
import Synchronization
import TagRules
import Testing

/// The console's routes through Hummingbird's test client (docs/console.md): sessions, CSRF, the security
/// headers, hostile tag data on every page.
@Suite struct ConsoleRouteTests {
    static let pages = ["/", "/history", "/tags", "/readers", "/deliveries", "/rules"]
    static let writes = [
        "/tags/enroll", "/tags/update", "/tags/edit", "/deliveries/retry", "/deliveries/drop", "/logout",
    ]

    @Test(arguments: pages)
    func aPageWithoutASessionRedirectsToSignIn(path: String) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/login")
                #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true)
            }
        }
    }

    @Test(arguments: ["/events", "/history/export.csv", "/history/export.jsonl"])
    func dataWithoutASessionIsRefused(path: String) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test(arguments: pages)
    func aPageWithASessionAnswersWithTheSecurityHeaders(path: String) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, _) = try await fixture.signIn(client)
            try await client.execute(uri: path, method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(
                    response.headers[.contentSecurityPolicy]
                        == "default-src 'self'; base-uri 'none'; form-action 'self'")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                let body = String(buffer: response.body)
                #expect(!body.contains("<script>"), "an inline script on \(path)")
                #expect(!body.contains("style="), "an inline style on \(path)")
            }
        }
    }

    @Test(arguments: writes)
    func aWriteWithoutASessionIsRefused(path: String) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let body = ConsoleFixture.form([("csrf", "x"), ("tag", "alice"), ("edit", "disable"), ("id", "1")])
            try await client.execute(
                uri: path, method: .post, headers: ConsoleFixture.formHeaders(cookie: nil), body: body
            ) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test(arguments: writes)
    func aWriteWithoutTheCSRFTokenIsRefused(path: String) async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client)
            for token in [nil, (csrf.first == "0" ? "1" : "0") + csrf.dropFirst()] {
                var fields = [
                    ("name", "alice"), ("tag", "alice"), ("edit", "disable"), ("id", "1"), ("uid", "04A1B2C3D4E580"),
                    ("reader", "Door"),
                ]
                if let token { fields.append(("csrf", String(token))) }
                try await client.execute(
                    uri: path, method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                    body: ConsoleFixture.form(fields)
                ) { response in
                    #expect(response.status == .forbidden, "\(path) with token \(token ?? "none")")
                }
            }
            // Nothing was written.
            let text = try String(contentsOfFile: fixture.folder + "/tags.yaml", encoding: .utf8)
            #expect(!text.contains("disabled"))
        }
    }

    @Test func disablingAndEnablingATagEditsTheTagsFileKeepingItsComments() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client)
            try await client.execute(
                uri: "/tags/edit", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf), ("tag", "04A1B2C3D4E580"), ("edit", "disable")])
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/tags")
            }
            let text = try String(contentsOfFile: fixture.folder + "/tags.yaml", encoding: .utf8)
            #expect(text.hasPrefix("# the fobs\n"))
            #expect(text.contains("disabled: true"))
            try await client.execute(uri: "/tags", method: .get, headers: [.cookie: cookie]) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("disabled &quot;alice&quot; (04A1B2C3D4E580)"))
                #expect(page.contains(#"<button type="submit" name="edit" value="enable">Enable</button>"#))
            }
        }
    }

    @Test func aOneTimeLinkSignsInOnceAndSetsAStrictHttpOnlyCookie() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let token = try ConsoleLogin.issue(in: fixture.database)
            let response = try await ConsoleFixture.postSignIn(client, "/login/link", [("token", token)])
            #expect(response.status == .seeOther)
            let cookie = try #require(response.headers[values: .setCookie].first { $0.hasPrefix("tagrouter_session=") })
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))
            let again = try await ConsoleFixture.postSignIn(client, "/login/link", [("token", token)])
            #expect(again.status == .unauthorized)
            #expect(!again.headers[values: .setCookie].contains { $0.hasPrefix("tagrouter_session=") })
        }
    }

    @Test func anExpiredOneTimeLinkIsRefused() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let token = try ConsoleLogin.issue(in: fixture.database, now: Date() - ConsoleLogin.lifetime - 1)
            let response = try await ConsoleFixture.postSignIn(client, "/login/link", [("token", token)])
            #expect(response.status == .unauthorized)
        }
    }

    @Test func signInAttemptsAreRateLimitedPerAddress() async throws {
        let fixture = try ConsoleFixture(loginLimiter: (3, 30))
        defer { fixture.remove() }
        try await fixture.test { client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 {
                statuses.append(
                    try await ConsoleFixture.postSignIn(client, "/login/link", [("token", "wrong")]).status)
            }
            #expect(statuses == [.unauthorized, .unauthorized, .unauthorized, .tooManyRequests, .tooManyRequests])
            // A valid link is refused too while the limit holds.
            let token = try ConsoleLogin.issue(in: fixture.database)
            let response = try await ConsoleFixture.postSignIn(client, "/login/link", [("token", token)])
            #expect(response.status == .tooManyRequests)
            #expect(response.headers[.retryAfter] == "60")
        }
    }

    @Test func signingOutEndsTheSession() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            let (cookie, csrf) = try await fixture.signIn(client)
            try await client.execute(
                uri: "/logout", method: .post, headers: ConsoleFixture.formHeaders(cookie: cookie),
                body: ConsoleFixture.form([("csrf", csrf)])
            ) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .seeOther)
            }
        }
    }

    @Test(
        arguments: [
            ("127.0.0.1", nil, nil, nil),
            ("localhost", nil, nil, nil),
            ("::1", nil, nil, nil),
            (
                "0.0.0.0", nil, nil,
                "the console's address 0.0.0.0:8788 is not loopback: the console refuses to serve it without TLS; give "
                    + "--console-certificate FILE and --console-key FILE (or certificate: and key: in the console: "
                    + "block), or listen on 127.0.0.1 behind a reverse proxy (docs/operations.md, \"The web console\")"
            ),
            ("0.0.0.0", "cert.pem", "key.pem", nil),
            (
                "127.0.0.1", "cert.pem", nil,
                "the console's TLS needs a certificate and a key (--console-certificate and --console-key, or "
                    + "certificate: and key: in the console: block); only one is given"
            ),
        ] as [(String, String?, String?, String?)])
    func aNonLoopbackAddressNeedsTLS(host: String, certificate: String?, key: String?, error: String?) {
        let configuration = ConsoleConfiguration(
            host: host, port: 8788, stateDirectory: "/tmp", certificateFile: certificate, keyFile: key)
        if let error {
            #expect(throws: ConsoleError(error)) { try configuration.validate() }
        } else {
            #expect(throws: Never.self) { try configuration.validate() }
        }
    }
}

/// Signing in with the password whose bcrypt hash is in the rules' `console:` block.
@Suite struct ConsolePasswordTests {
    @Test func thePasswordOfTheRulesSignsInAndAWrongOneDoesNot() async throws {
        let hash = ConsolePassword.hash("correct horse", cost: 4)
        let fixture = try ConsoleFixture(consoleBlock: "console: {passwordHash: \"\(hash)\"}\n")
        defer { fixture.remove() }
        try await fixture.test { client in
            try await client.execute(uri: "/login", method: .get) { response in
                #expect(String(buffer: response.body).contains(#"<input type="password" name="password""#))
            }
            for (password, status) in [("wrong", HTTPResponse.Status.unauthorized), ("correct horse", .seeOther)] {
                let response = try await ConsoleFixture.postSignIn(client, "/login", [("password", password)])
                #expect(response.status == status, "\(password)")
                #expect(
                    response.headers[values: .setCookie].contains { $0.hasPrefix("tagrouter_session=") }
                        == (status == .seeOther))
            }
        }
    }

    @Test func withoutAHashThereIsNoPasswordField() async throws {
        let fixture = try ConsoleFixture()
        defer { fixture.remove() }
        try await fixture.test { client in
            try await client.execute(uri: "/login", method: .get) { response in
                #expect(!String(buffer: response.body).contains("type=\"password\""))
            }
            #expect(try await ConsoleFixture.postSignIn(client, "/login", [("password", "")]).status == .unauthorized)
        }
    }

    @Test func consolePasswordPrintsAHashOfThePassword() throws {
        let output = ConsoleCommands.password(input: .init(isTerminal: false) { _ in "s3cret" })
        #expect(output.status == 0)
        let line = output.standardOutput
        #expect(line.hasPrefix("passwordHash: \"$2b$12$"))
        let hash = String(line.dropFirst("passwordHash: \"".count).prefix { $0 != "\"" })
        #expect(ConsolePassword.verify("s3cret", hash: hash))
        let viewer = ConsoleCommands.password(input: .init(isTerminal: false) { _ in "look" }, viewer: true)
        #expect(viewer.status == 0)
        #expect(viewer.standardOutput.hasPrefix("viewerPasswordHash: \"$2b$12$"))
        let viewerHash = String(viewer.standardOutput.dropFirst("viewerPasswordHash: \"".count).prefix { $0 != "\"" })
        #expect(ConsolePassword.verify("look", hash: viewerHash))
        #expect(ConsoleCommands.password(input: .init(isTerminal: false) { _ in "" }).status == 1)
        let answers = Answers(["one", "two"])
        #expect(
            ConsoleCommands.password(input: .init(isTerminal: true) { _ in answers.next() }).errors == [
                "the two passwords differ"
            ])
    }
}

/// Answers given one after another.
final class Answers: Sendable {
    let remaining: Mutex<[String]>
    init(_ answers: [String]) { remaining = Mutex(answers) }
    func next() -> String? { remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

/// Where the console listens: `--console` and its TLS options over the rules' `console:` block, off without
/// either (docs/console.md, "Turning it on").
@Suite struct ConsoleSettingsTests {
    struct NoTags: ConsoleTagsEditing {
        var rulesFolder: String? { nil }
        func list() throws(ConsoleError) -> (path: String, tags: [KnownTag]) { throw ConsoleError("none") }
        func enroll(_ entry: TagEntryRequest, tag: EnrollingTag, replacing: Bool) throws(ConsoleError) -> String {
            throw ConsoleError("none")
        }
        func edit(_ edit: TagEdit, name: String) throws(ConsoleError) -> String { throw ConsoleError("none") }
    }

    struct NoTools: ConsoleRuleTools {
        func check() -> (text: String, hasErrors: Bool) { ("", false) }
        func explain(uri: String?, uid: String?, reader: String) -> String { "" }
    }

    static func block(_ yaml: String) throws -> ConsoleBlock? {
        try RuleSet.load(files: [("f.yaml", "version: 1\n\(yaml)rules: []\n")], environment: [:]).get().console
    }

    static func settings(_ address: (String, Int)?, certificate: String? = nil, key: String? = nil) -> ConsoleSettings {
        ConsoleSettings(
            address: address.map { (host: $0.0, port: $0.1) }, certificateFile: certificate, keyFile: key,
            stateDirectory: "/state", tags: NoTags(), ruleTools: NoTools())
    }

    @Test func theCommandLineWinsOverTheBlockAndNeitherIsOff() throws {
        let block = try Self.block("console: {address: \"0.0.0.0:9000\", certificate: b.pem, key: b.key}\n")
        #expect(Self.settings(nil).configuration(with: nil) == nil)
        #expect(Self.settings(nil).configuration(with: try Self.block("console: {}\n")) == nil)
        #expect(
            Self.settings(nil).configuration(with: block)
                == ConsoleConfiguration(
                    host: "0.0.0.0", port: 9000, stateDirectory: "/state", certificateFile: "b.pem", keyFile: "b.key"))
        #expect(
            Self.settings(("127.0.0.1", 8788)).configuration(with: block)
                == ConsoleConfiguration(
                    host: "127.0.0.1", port: 8788, stateDirectory: "/state", certificateFile: "b.pem", keyFile: "b.key")
        )
        #expect(
            Self.settings(("127.0.0.1", 8788), certificate: "c.pem", key: "c.key").configuration(with: nil)
                == ConsoleConfiguration(
                    host: "127.0.0.1", port: 8788, stateDirectory: "/state", certificateFile: "c.pem", keyFile: "c.key")
        )
    }
}
