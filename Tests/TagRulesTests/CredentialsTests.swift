import Foundation
import TagRules
import Testing

/// `${NAME}` read from systemd credentials (`$CREDENTIALS_DIRECTORY/NAME`) before the environment.
@Suite("Credentials: ${NAME} from $CREDENTIALS_DIRECTORY")
struct CredentialsTests {
    static let rules = """
        version: 1
        rules:
          - name: r
            match: {any: true}
            webhook: {url: "https://h.example/", headers: {Authorization: "Bearer ${TOKEN}"}, secret: "${SIGN:-none}"}
        """

    /// A fresh credentials directory holding `files`, removed after `body`.
    static func withCredentials(_ files: [String: [UInt8]], _ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, bytes) in files {
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        try body(directory)
    }

    /// The webhook's Authorization header and secret, rendered with unmasked values.
    static func rendered(_ environment: [String: String]) throws -> (authorization: String?, secret: String?) {
        let ruleSet = try RuleSet.load(files: [("f.yaml", rules)], environment: environment).get()
        let event = TagEvent(uid: "04A1B2C3D4E580", reader: "Desk", tech: "type2", uri: "https://e.com/")
        guard case .webhook(let webhook) = try ruleSet.rules[0].render(event: event, eventID: "e", time: "t").first
        else {
            Issue.record("expected the webhook")
            return (nil, nil)
        }
        return (webhook.headers.first { $0.name == "Authorization" }?.value, webhook.secret)
    }

    /// The first diagnostic's text when the rules do not load.
    static func failure(_ environment: [String: String]) -> String? {
        RuleSet.load(files: [("f.yaml", rules)], environment: environment).diagnostics
            .first { $0.severity == .error }?.headline
    }

    @Test("a credential comes before the environment variable; one trailing newline is removed")
    func credentialFirst() throws {
        try Self.withCredentials(["TOKEN": Array("from-credential\n".utf8), "SIGN": Array("k3y\r\n".utf8)]) {
            let values = try Self.rendered(["CREDENTIALS_DIRECTORY": $0, "TOKEN": "from-environment"])
            #expect(values.authorization == "Bearer from-credential")
            #expect(values.secret == "k3y")
        }
    }

    @Test("only one trailing newline goes; inner ones and spaces stay")
    func onlyOneNewline() throws {
        try Self.withCredentials(["TOKEN": Array(" a b \n\n".utf8)]) {
            let authorization = try Self.rendered(["CREDENTIALS_DIRECTORY": $0]).authorization
            #expect(authorization == "Bearer  a b \n")
        }
    }

    @Test("without a credential of that name the environment variable counts, then the default")
    func environmentThenDefault() throws {
        try Self.withCredentials(["OTHER": Array("x".utf8)]) {
            let values = try Self.rendered(["CREDENTIALS_DIRECTORY": $0, "TOKEN": "from-environment"])
            #expect(values.authorization == "Bearer from-environment")
            #expect(values.secret == "none")
        }
        // No credentials directory at all, an empty or a missing one: the environment alone.
        for directory in [nil, "", "/nonexistent-\(UUID().uuidString)"] {
            var environment = ["TOKEN": "from-environment"]
            environment["CREDENTIALS_DIRECTORY"] = directory
            #expect(try Self.rendered(environment).authorization == "Bearer from-environment")
        }
    }

    @Test("a variable in neither place is an error that says where it was looked for")
    func missingEverywhere() throws {
        try Self.withCredentials([:]) { directory in
            let text = try #require(Self.failure(["CREDENTIALS_DIRECTORY": directory]))
            #expect(
                text.hasSuffix(
                    "error: environment variable 'TOKEN' is not set and $CREDENTIALS_DIRECTORY has no credential "
                        + "'TOKEN' (write '${TOKEN:-default}' for a default)"), "\(text)")
        }
        let plain = try #require(Self.failure([:]))
        #expect(
            plain.hasSuffix("error: environment variable 'TOKEN' is not set (write '${TOKEN:-default}' for a default)"))
    }

    @Test("a credential that cannot be used is an error naming the file, never showing its content")
    func unusableCredential() throws {
        try Self.withCredentials(["TOKEN": Array("sec\u{0}ret-value".utf8)]) { directory in
            let text = try #require(Self.failure(["CREDENTIALS_DIRECTORY": directory, "TOKEN": "env"]))
            #expect(text.contains("credential 'TOKEN' (\(directory)/TOKEN) holds a NUL byte"), "\(text)")
            #expect(!text.contains("ret-value"))
        }
        try Self.withCredentials(["TOKEN": [0xFF, 0xFE, 0x41]]) { directory in
            let text = try #require(Self.failure(["CREDENTIALS_DIRECTORY": directory]))
            #expect(text.contains("credential 'TOKEN' (\(directory)/TOKEN) is not UTF-8 text"), "\(text)")
        }
        try Self.withCredentials([:]) { directory in
            try FileManager.default.createDirectory(atPath: directory + "/TOKEN", withIntermediateDirectories: true)
            let text = try #require(Self.failure(["CREDENTIALS_DIRECTORY": directory]))
            #expect(text.contains("credential 'TOKEN' (\(directory)/TOKEN) cannot be read"), "\(text)")
        }
    }

    @Test("every load reads the credentials again (a reload sees a changed file)")
    func reloadReadsAgain() throws {
        try Self.withCredentials(["TOKEN": Array("first\n".utf8)]) { directory in
            let environment = ["CREDENTIALS_DIRECTORY": directory]
            #expect(try Self.rendered(environment).authorization == "Bearer first")
            try Data("second\n".utf8).write(to: URL(fileURLWithPath: directory + "/TOKEN"))
            #expect(try Self.rendered(environment).authorization == "Bearer second")
        }
    }

    @Test("SUN keys may be credentials: the rule still names only ${VAR}")
    func sunKeysFromCredentials() throws {
        let zero = Array(String(repeating: "0", count: 32).utf8) + [0x0A]
        try Self.withCredentials(["META": zero, "FILE": zero]) { directory in
            let rules = try RuleSet.load(
                files: [("door.yaml", SUNRulesTests.rules(SUNRulesTests.sun))],
                environment: ["CREDENTIALS_DIRECTORY": directory]
            ).get()
            let event = TagEvent(uid: "04DE5F1EACC040", reader: "Door", tech: "type4", uri: SUNRulesTests.an12196)
            let decision = rules.decide(event, at: Date())
            #expect(decision.event.sun?.counter == 61)
        }
    }
}
