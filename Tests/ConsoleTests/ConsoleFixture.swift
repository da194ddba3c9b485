import Console
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RouterCommands
import StateStore
import TagRules
import Testing

/// A console over a real rules folder (a door rule and a tags file), a real state database and a real live feed,
/// served through Hummingbird's test client.
struct ConsoleFixture {
    static let hostile = "<script>window.__xss=1</script>\"onmouseover=alert(1) \u{202E}evil"

    let folder: String
    let state: String
    let database: StateDatabase
    let feed = LiveFeed()
    let console: WebConsole

    init(
        tagsFile: String = ConsoleFixture.tagsFile, consoleBlock: String = "", loginLimiter: (Int, Int) = (5, 30),
        enrollmentTimeout: Duration = .seconds(5), wakeOutbox: @escaping @Sendable () -> Void = {}
    ) throws {
        let root = NSTemporaryDirectory() + "console-" + UUID().uuidString
        folder = root + "/rules"
        state = root + "/state"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.rules.replacingOccurrences(of: "version: 1\n", with: "version: 1\n" + consoleBlock)
            .write(toFile: folder + "/door.yaml", atomically: true, encoding: .utf8)
        try tagsFile.write(toFile: folder + "/tags.yaml", atomically: true, encoding: .utf8)
        var logger = Logger(label: "console-tests")
        logger.logLevel = .critical
        database = try StateDatabase(directory: state, logger: logger)
        let sources = [folder]
        let ruleSet = try #require(RuleSet.load(sources: sources, environment: [:]).ruleSet)
        console = try WebConsole(
            configuration: ConsoleConfiguration(host: "127.0.0.1", port: 0, stateDirectory: state),
            feed: feed, database: database, currentRules: { ruleSet }, tags: ConsoleTagsFile(sources: sources),
            ruleTools: ConsoleRules(sources: sources, stateDirectory: state), logger: logger,
            loginLimiter: (perAddress: loginLimiter.0, overall: loginLimiter.1), enrollmentTimeout: enrollmentTimeout,
            wakeOutbox: wakeOutbox)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent)
    }

    static let rules = """
        version: 1
        rules:
          - name: front-door
            match:
              reader: "*Door*"
              tags: [staff]
            actions:
              - run: ["/bin/true"]

        """

    static let tagsFile = """
        # the fobs
        version: 1
        tags:
          - name: alice
            uid: "04A1B2C3D4E580"
            groups: [staff]
          - name: "\(hostileYAML)"
            uid: "04B1B2C3D4E581"
            groups: [staff]
            note: "\(hostileYAML)"

        """

    /// ``hostile`` inside a YAML double-quoted scalar.
    static var hostileYAML: String {
        hostile.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\u{202E}", with: "\\u202E")
    }

    /// Runs `body` with a test client of the console's application.
    func test<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        try await Application(router: console.router()).test(.router, body)
    }

    /// Signs in through a fresh one-time link, as the link's page does; returns the `Cookie` header value and the
    /// session's CSRF token.
    func signIn(_ client: any TestClientProtocol) async throws -> (cookie: String, csrf: String) {
        let token = try ConsoleLogin.issue(in: database)
        let response = try await Self.postSignIn(client, "/login/link", [("token", token)])
        #expect(response.status == .seeOther)
        return try await Self.session(client, response)
    }

    /// Signs in with a password through the sign-in page's form; returns the `Cookie` header value and the
    /// session's CSRF token.
    func signIn(_ client: any TestClientProtocol, password: String) async throws -> (cookie: String, csrf: String) {
        let response = try await Self.postSignIn(client, "/login", [("password", password)])
        #expect(response.status == .seeOther)
        return try await Self.session(client, response)
    }

    /// The session cookie a sign-in set, and the CSRF token of the session's first page.
    static func session(_ client: any TestClientProtocol, _ response: TestResponse) async throws -> (
        cookie: String, csrf: String
    ) {
        let setCookie = try #require(
            response.headers[values: .setCookie].first { $0.hasPrefix("tagrouter_session=") })
        let cookie = String(setCookie.prefix { $0 != ";" })
        let csrf = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
            try #require(Self.csrf(in: String(buffer: response.body)))
        }
        return (cookie, csrf)
    }

    /// The sign-in page's CSRF cookie (as a `Cookie` header value) and the field its forms carry (the page of a
    /// link, which has a form whether or not a password is set).
    static func loginForm(_ client: any TestClientProtocol) async throws -> (cookie: String, field: String) {
        try await client.execute(uri: "/login?token=page", method: .get) { response in
            let setCookie = try #require(
                response.headers[values: .setCookie].first { $0.hasPrefix("tagrouter_login=") })
            let page = String(buffer: response.body)
            let start = try #require(page.range(of: #"name="login" value=""#))
            return (String(setCookie.prefix { $0 != ";" }), String(page[start.upperBound...].prefix { $0 != "\"" }))
        }
    }

    /// Posts a sign-in form as the sign-in page's form does, with the page's CSRF cookie and field.
    static func postSignIn(_ client: any TestClientProtocol, _ path: String, _ fields: [(String, String)])
        async throws -> TestResponse
    {
        let (cookie, field) = try await loginForm(client)
        return try await client.execute(
            uri: path, method: .post, headers: formHeaders(cookie: cookie), body: form([("login", field)] + fields)
        ) { $0 }
    }

    /// The CSRF token a page carries (`data-csrf` on its body).
    static func csrf(in page: String) -> String? {
        guard let start = page.range(of: "data-csrf=\"") else { return nil }
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }

    /// A form body.
    static func form(_ fields: [(String, String)]) -> ByteBuffer {
        var components = URLComponents()
        components.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        return ByteBuffer(string: components.percentEncodedQuery ?? "")
    }

    /// Headers of a signed-in form post.
    static func formHeaders(cookie: String?) -> HTTPFields {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        return headers
    }
}
