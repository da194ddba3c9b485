import TagRules
import Testing

/// The `console:` block: the web console's address, TLS files and password hashes, every error at file:line:col
/// (docs/console.md, "Turning it on").
@Suite struct ConsoleRulesTests {
    static func file(_ console: String) -> String {
        "version: 1\n" + console + "rules:\n  - name: r\n    match: {any: true}\n    run: [/bin/true]\n"
    }

    static let hash = "$2b$12$" + String(repeating: "a", count: 53)
    static let viewerHash = "$2b$12$" + String(repeating: "b", count: 53)

    typealias Case = DiagnosticCase

    static let errors: [Case] = [
        Case(
            name: "an address without a port", yaml: file("console: {address: localhost}\n"),
            expected: ["f.yaml:2:20: error: 'address' 'localhost' is not HOST:PORT (write 127.0.0.1:8788)"]),
        Case(
            name: "a port out of range", yaml: file("console: {address: \"127.0.0.1:70000\"}\n"),
            expected: ["f.yaml:2:20: error: 'address' '127.0.0.1:70000' is not HOST:PORT (write 127.0.0.1:8788)"]),
        Case(
            name: "a password instead of its hash", yaml: file("console: {passwordHash: hunter2}\n"),
            expected: [
                "f.yaml:2:25: error: 'passwordHash' is not a bcrypt hash ($2b$…, 60 characters): write what "
                    + "tagrouter console-password prints"
            ]),
        Case(
            name: "a viewer's password instead of its hash", yaml: file("console: {viewerPasswordHash: hunter2}\n"),
            expected: [
                "f.yaml:2:31: error: 'viewerPasswordHash' is not a bcrypt hash ($2b$…, 60 characters): write what "
                    + "tagrouter console-password --viewer prints"
            ]),
        Case(
            name: "an unknown key", yaml: file("console:\n  adress: 127.0.0.1:8788\n"),
            expected: ["f.yaml:3:3: error: unknown key 'adress' in 'console' (did you mean 'address'?)"]),
        Case(
            name: "not a mapping", yaml: file("console: 127.0.0.1:8788\n"),
            expected: ["f.yaml:2:10: error: 'console' must be a mapping, not a string"]),
    ]

    @Test(arguments: errors)
    func errorsAreReportedAtTheirPlace(fact: Case) {
        let result = RuleSet.load(files: [("f.yaml", fact.yaml)], environment: [:])
        #expect(result.diagnostics.map(\.headline) == fact.expected)
        #expect(result.ruleSet == nil)
    }

    @Test func valuesAreParsed() throws {
        let yaml = Self.file(
            "console:\n  address: \"[::1]:8788\"\n  certificate: /etc/c.pem\n  key: /etc/c.key\n"
                + "  passwordHash: \"\(Self.hash)\"\n  viewerPasswordHash: \"\(Self.viewerHash)\"\n")
        let console = try #require(try RuleSet.load(files: [("f.yaml", yaml)], environment: [:]).get().console)
        #expect(console.address?.host == "::1")
        #expect(console.address?.port == 8788)
        #expect(console.certificate == "/etc/c.pem")
        #expect(console.key == "/etc/c.key")
        #expect(console.passwordHash == Self.hash)
        #expect(console.viewerPasswordHash == Self.viewerHash)
        #expect(console.location.description == "f.yaml:2:1")
    }

    @Test func aSecondBlockIsAnErrorNamingTheFirst() {
        let result = RuleSet.load(
            files: [
                ("a.yaml", Self.file("console: {address: \"127.0.0.1:8788\"}\n")),
                ("b.yaml", "version: 1\nconsole: {}\nrules: []\n"),
            ],
            environment: [:])
        #expect(
            result.diagnostics.map(\.headline) == [
                "b.yaml:2:1: error: a second 'console' block (a rule set has one; the first is at a.yaml:2:1)"
            ])
    }
}
