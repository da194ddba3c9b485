import TagRules
import Testing

/// One validation-catalogue fact: a file and the exact diagnostics (headline form) it must produce.
struct DiagnosticCase: CustomStringConvertible, Sendable {
    var name: String
    var yaml: String
    var expected: [String]
    var description: String { name }
}

private func rule(_ body: String) -> String {
    "version: 1\nrules:\n  - name: r\n" + body
}

let catalogue: [DiagnosticCase] = [
    DiagnosticCase(
        name: "missing version", yaml: "rules:\n  - name: r\n    match: {any: true}\n    open: x\n",
        expected: ["f.yaml:1:1: error: missing 'version: 1'"]),
    DiagnosticCase(
        name: "unknown version", yaml: "version: 2\nrules: []\n",
        expected: ["f.yaml:1:10: error: unknown version '2' (expected 1)"]),
    DiagnosticCase(
        name: "missing rules", yaml: "version: 1\n",
        expected: ["f.yaml:1:1: error: missing 'rules' (a list of rules)"]),
    DiagnosticCase(
        name: "rules not a list", yaml: "version: 1\nrules: door\n",
        expected: ["f.yaml:2:8: error: 'rules' must be a list, not a string"]),
    DiagnosticCase(
        name: "rule without name", yaml: "version: 1\nrules:\n  - match: {any: true}\n    open: x\n",
        expected: ["f.yaml:3:5: error: rule #1 has no 'name'"]),
    DiagnosticCase(
        name: "bad name characters",
        yaml: "version: 1\nrules:\n  - name: front door\n    match: {any: true}\n    open: x\n",
        expected: ["f.yaml:3:11: error: rule name 'front door' may only contain letters, digits, '.', '_' and '-'"]),
    DiagnosticCase(
        name: "duplicate name",
        yaml:
            "version: 1\nrules:\n  - name: a\n    match: {any: true}\n    open: x\n  - name: a\n    match: {any: true}\n    open: y\n",
        expected: ["f.yaml:6:11: error: duplicate rule name 'a' (first defined at f.yaml:3:11)"]),
    DiagnosticCase(
        name: "unknown rule key", yaml: rule("    match: {any: true}\n    opne: x\n"),
        expected: [
            "f.yaml:5:5: error: unknown key 'opne' in rule 'r' (did you mean 'open'?)",
            "f.yaml:3:5: error: rule 'r' has no action (add 'run', 'open', 'webhook', 'mqtt' or 'actions')",
        ].reversed()),
    DiagnosticCase(
        name: "unknown match key", yaml: rule("    match: {domians: [e.com]}\n    open: x\n"),
        expected: ["f.yaml:4:13: error: unknown key 'domians' in 'match' in rule 'r' (did you mean 'domains'?)"]),
    DiagnosticCase(
        name: "unknown top-level key", yaml: "version: 1\nrule: []\nrules: []\n",
        expected: ["f.yaml:2:1: error: unknown key 'rule' at the top level (did you mean 'rules'?)"]),
    DiagnosticCase(
        name: "string where a list is expected", yaml: rule("    match: {domains: e.com}\n    open: x\n"),
        expected: ["f.yaml:4:22: error: 'domains' must be a list, not a string (write [e.com])"]),
    DiagnosticCase(
        name: "mapping where a bool is expected", yaml: rule("    match: {any: {a: 1}}\n    open: x\n"),
        expected: ["f.yaml:4:18: error: 'any' must be true or false, not a mapping"]),
    DiagnosticCase(
        name: "empty match", yaml: rule("    match: {}\n    open: x\n"),
        expected: ["f.yaml:4:12: error: empty 'match' in rule 'r' (write 'any: true' to match every tag)"]),
    DiagnosticCase(
        name: "missing match", yaml: rule("    open: x\n"),
        expected: ["f.yaml:3:5: error: rule 'r' has no 'match'"]),
    DiagnosticCase(
        name: "components without domains or schemes",
        yaml: rule("    match:\n      components: [{'/': '/a'}]\n    open: x\n"),
        expected: ["f.yaml:5:7: error: 'components' requires 'domains' or 'schemes' in rule 'r'"]),
    DiagnosticCase(
        name: "unterminated $(",
        yaml: rule("    match:\n      domains: [e.com]\n      components: [{'/': '/a/$(digit'}]\n    open: x\n"),
        expected: ["f.yaml:6:30: error: unterminated '$(' in pattern '/a/$(digit'"]),
    DiagnosticCase(
        name: "unknown variable",
        yaml: rule("    match:\n      domains: [e.com]\n      components: [{'/': '/$(rom)'}]\n    open: x\n"),
        expected: ["f.yaml:6:28: error: unknown substitution variable '$(rom)'"]),
    DiagnosticCase(
        name: "unknown variable with suggestion",
        yaml: rule("    match:\n      domains: [e.com]\n      components: [{'/': '/$(digt)'}]\n    open: x\n"),
        expected: ["f.yaml:6:28: error: unknown substitution variable '$(digt)' (did you mean '$(digit)'?)"]),
    DiagnosticCase(
        name: "unknown escape", yaml: rule("    match:\n      domains: [e.com]\n      paths: ['/a\\b']\n    open: x\n"),
        expected: [#"f.yaml:6:18: error: unknown escape '\b' in pattern '/a\b' (only \*, \?, \$ and \\ exist)"#]),
    // Offsets and escapes count Unicode scalars: a combining mark is a column of its own, and a backslash
    // followed by one is an escape of the mark, not a literal grapheme cluster (fuzz-aasa, round 6).
    DiagnosticCase(
        name: "unknown escape after a combining mark",
        yaml: rule("    match:\n      domains: [e.com]\n      paths: ['/e\u{301}\\b']\n    open: x\n"),
        expected: [
            "f.yaml:6:19: error: unknown escape '\\b' in pattern '/e\u{301}\\b' (only \\*, \\?, \\$ and \\\\ exist)"
        ]),
    DiagnosticCase(
        name: "escaped combining mark",
        yaml: rule("    match:\n      domains: [e.com]\n      paths: ['/a\\\u{301}']\n    open: x\n"),
        expected: [
            "f.yaml:6:18: error: unknown escape '\\\u{301}' in pattern '/a\\\u{301}' (only \\*, \\?, \\$ and \\\\ exist)"
        ]),
    DiagnosticCase(
        name: "domain with a path", yaml: rule("    match: {domains: [e.com/a]}\n    open: x\n"),
        expected: ["f.yaml:4:23: error: domain 'e.com/a' must not contain a path, query or fragment (use 'components')"]
    ),
    DiagnosticCase(
        name: "domain with a scheme", yaml: rule("    match: {domains: ['https://e.com']}\n    open: x\n"),
        expected: ["f.yaml:4:23: error: domain 'https://e.com' must not contain a scheme (use 'schemes')"]),
    DiagnosticCase(
        name: "domain with an inner wildcard", yaml: rule("    match: {domains: ['a.*.e.com']}\n    open: x\n"),
        expected: ["f.yaml:4:23: error: domain 'a.*.e.com' has a wildcard other than a leading '*.'"]),
    DiagnosticCase(
        name: "domain with a bare wildcard", yaml: rule("    match: {domains: ['*e.com']}\n    open: x\n"),
        expected: ["f.yaml:4:23: error: domain '*e.com' has a wildcard other than a leading '*.'"]),
    DiagnosticCase(
        name: "invalid port", yaml: rule("    match: {domains: ['e.com:99999']}\n    open: x\n"),
        expected: ["f.yaml:4:23: error: invalid port '99999' in domain 'e.com:99999' (expected 1 to 65535)"]),
    DiagnosticCase(
        name: "non-numeric port", yaml: rule("    match: {domains: ['e.com:http']}\n    open: x\n"),
        expected: ["f.yaml:4:23: error: invalid port 'http' in domain 'e.com:http' (expected 1 to 65535)"]),
    DiagnosticCase(
        name: "UID not hex", yaml: rule("    match: {uid: [04A1G2]}\n    open: x\n"),
        expected: ["f.yaml:4:19: error: UID '04A1G2' is not hex (expected like 04A1B2C3D4E580 or 04:a1:b2:c3)"]),
    DiagnosticCase(
        name: "UID odd length", yaml: rule("    match: {uid: ['04:A1:B']}\n    open: x\n"),
        expected: ["f.yaml:4:19: error: UID '04:A1:B' has an odd number of hex digits"]),
    DiagnosticCase(
        name: "malformed MIME type", yaml: rule("    match: {mime: [textplain]}\n    open: x\n"),
        expected: ["f.yaml:4:20: error: malformed MIME type 'textplain' (expected type/subtype or type/*)"]),
    DiagnosticCase(
        name: "rule without action", yaml: rule("    match: {any: true}\n"),
        expected: ["f.yaml:3:5: error: rule 'r' has no action (add 'run', 'open', 'webhook', 'mqtt' or 'actions')"]),
    DiagnosticCase(
        name: "empty action in a list", yaml: rule("    match: {any: true}\n    actions: [{}]\n"),
        expected: [
            "f.yaml:5:15: error: an action is empty in rule 'r' (give one of 'run', 'open', 'webhook' or 'mqtt')"
        ]),
    DiagnosticCase(
        name: "run with empty argv", yaml: rule("    match: {any: true}\n    run: []\n"),
        expected: ["f.yaml:5:10: error: 'run' has an empty argv in rule 'r'"]),
    DiagnosticCase(
        name: "run relative program not on PATH",
        yaml: rule("    match: {any: true}\n    run: [no-such-program-xyz]\n"),
        expected: ["f.yaml:5:11: warning: program 'no-such-program-xyz' is not found on PATH"]),
    DiagnosticCase(
        name: "run relative path", yaml: rule("    match: {any: true}\n    run: [bin/door]\n"),
        expected: [
            "f.yaml:5:11: warning: program 'bin/door' is a relative path; it depends on the router's working directory"
        ]),
    DiagnosticCase(
        name: "webhook url not http", yaml: rule("    match: {any: true}\n    webhook: {url: 'ftp://e.com/x'}\n"),
        expected: ["f.yaml:5:20: error: webhook url 'ftp://e.com/x' is not http:// or https://"]),
    DiagnosticCase(
        name: "unknown placeholder", yaml: rule("    match: {any: true}\n    open: 'https://e.com/?u={uidd}'\n"),
        expected: ["f.yaml:5:29: error: unknown placeholder '{uidd}' (did you mean '{uid}'?)"]),
    DiagnosticCase(
        name: "undefined variable",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://e.com/', secret: '${NOPE_SECRET}'}\n"),
        expected: [
            "f.yaml:5:47: error: environment variable 'NOPE_SECRET' is not set (write '${NOPE_SECRET:-default}' for a default)"
        ]),
    DiagnosticCase(
        name: "bad duration", yaml: rule("    match: {any: true}\n    cooldown: 2 seconds\n    open: x\n"),
        expected: ["f.yaml:5:15: error: 'cooldown' '2 seconds' is not a duration (write 500ms, 2s, 1m, 1h or 0)"]),
    DiagnosticCase(
        name: "bad duration in defaults", yaml: "version: 1\ndefaults: {cooldown: 5}\nrules: []\n",
        expected: ["f.yaml:2:22: error: 'cooldown' '5' is not a duration (write 500ms, 2s, 1m, 1h or 0)"]),
    DiagnosticCase(
        name: "aasa file missing",
        yaml: rule("    match: {domains: [e.com], aasa: /no/such/aasa.json}\n    open: x\n"),
        expected: ["f.yaml:4:37: error: cannot read AASA file '/no/such/aasa.json' (looked for /no/such/aasa.json)"]),
    DiagnosticCase(
        name: "unknown tech", yaml: rule("    match: {tech: [type-2]}\n    open: x\n"),
        expected: [
            "f.yaml:4:20: error: unknown tech 'type-2' (did you mean 'type2'?); expected one of type2, type4, type5, mifare-classic, felica, iso14443-4, type1"
        ]),
    DiagnosticCase(
        name: "YAML syntax error", yaml: "version: 1\nrules:\n  - name: [a\n",
        expected: [
            "f.yaml:4:1: error: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence"
        ]),
    // Found by fuzz-rules: libyaml puts the end of a text without a final line break on the line after it.
    DiagnosticCase(
        name: "YAML syntax error at the end of a text without a final line break", yaml: "{",
        expected: ["f.yaml:1:2: error: YAML syntax error: did not find expected node content while parsing a flow node"]
    ),
    // Found by fuzz-rules (round 4): an empty node at the end of a text without a final line break has its mark
    // on the line after the last too; diagnostics about it now point just past the last character.
    DiagnosticCase(
        name: "empty document at the end of a text without a final line break", yaml: "---",
        expected: ["f.yaml:1:4: error: a rules file must be a mapping, not null"]),
    DiagnosticCase(
        name: "empty document with a final line break", yaml: "---\n",
        expected: ["f.yaml:2:1: error: a rules file must be a mapping, not null"]),
    // Found by fuzz-rules: an offset inside a scalar that goes on over several lines was added to the column of
    // its first line, pointing past that line's end; such problems now point at the scalar.
    DiagnosticCase(
        name: "undefined variable in a multi-line quoted scalar",
        yaml: rule("    match: {any: true}\n    open: 'https://example.com/a\n      ${NOPE}'\n"),
        expected: [
            "f.yaml:5:11: error: environment variable 'NOPE' is not set (write '${NOPE:-default}' for a default)"
        ]),
    DiagnosticCase(
        name: "undefined variable in a folded block scalar",
        yaml: rule("    match: {any: true}\n    open: >\n      a ${NOPE}\n"),
        expected: [
            "f.yaml:5:11: error: environment variable 'NOPE' is not set (write '${NOPE:-default}' for a default)"
        ]),
    DiagnosticCase(
        name: "undefined variable on one line",
        yaml: rule("    match: {any: true}\n    open: 'https://e.com/${NOPE}'\n"),
        expected: [
            "f.yaml:5:26: error: environment variable 'NOPE' is not set (write '${NOPE:-default}' for a default)"
        ]),
    DiagnosticCase(
        name: "duplicate YAML key", yaml: "version: 1\nversion: 1\nrules: []\n",
        expected: ["f.yaml:1:1: error: duplicate key 'version' in a mapping"]),
    DiagnosticCase(
        name: "null where a string is expected",
        yaml: "version: 1\nrules:\n  - name:\n    match: {any: true}\n    open: x\n",
        expected: ["f.yaml:3:10: error: a rule name must be a string, not null"]),
    DiagnosticCase(
        name: "quoted boolean", yaml: rule("    match: {any: 'true'}\n    open: x\n"),
        expected: ["f.yaml:4:18: error: 'any' must be true or false, not 'true'"]),
    DiagnosticCase(
        name: "empty open", yaml: rule("    match: {any: true}\n    open: ''\n"),
        expected: [#"f.yaml:5:11: error: 'open' is empty in rule 'r' (write "{uri}" to open the tag's URI)"#]),
    DiagnosticCase(
        name: "header with a line break",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://e.com', headers: {X-A: \"a\\nb\"}}\n"),
        expected: ["f.yaml:5:52: error: header 'X-A' contains a control character (only tab is allowed)"]),
    DiagnosticCase(
        name: "header with an escape character",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://e.com', headers: {X-A: \"a\\eb\"}}\n"),
        expected: ["f.yaml:5:52: error: header 'X-A' contains a control character (only tab is allowed)"]),
    DiagnosticCase(
        name: "webhook tls key without certificate, and a proxy that is not http",
        yaml: rule(
            "    match: {any: true}\n    webhook: {url: 'https://e.com', tls: {key: /etc/hostname}, proxy: 'socks5://p:1'}\n"
        ),
        expected: [
            "f.yaml:5:48: error: 'tls' has a 'key' but no 'certificate' (mutual TLS needs both)",
            "f.yaml:5:71: error: 'proxy' 'socks5://p:1' is not none or http://host:port",
        ]),
    DiagnosticCase(
        name: "webhook tls file that cannot be read",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://e.com', tls: {ca: /nonexistent/ca.pem}}\n"),
        expected: ["f.yaml:5:47: error: 'ca' '/nonexistent/ca.pem' cannot be read"]),
    // Issue 29: the tag never chooses a webhook's receiver, a command's program, or (unless the rule's match
    // restricts the scheme) what program opens a URI.
    DiagnosticCase(
        name: "webhook url with a placeholder host",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://{host}/x'}\n"),
        expected: [
            "f.yaml:5:20: error: webhook url 'https://{host}/x' has a placeholder in its host or port: write the receiver literally (placeholders may only go in the path and query)"
        ]),
    DiagnosticCase(
        name: "webhook url with a placeholder port",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://h.example:{uid}/'}\n"),
        expected: [
            "f.yaml:5:20: error: webhook url 'https://h.example:{uid}/' has a placeholder in its host or port: write the receiver literally (placeholders may only go in the path and query)"
        ]),
    DiagnosticCase(
        name: "webhook url with a placeholder right after the host",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://h.example{path}'}\n"),
        expected: [
            "f.yaml:5:20: error: webhook url 'https://h.example{path}' has a placeholder in its host or port: write the receiver literally (placeholders may only go in the path and query)"
        ]),
    DiagnosticCase(
        name: "webhook url with placeholders in the path and query",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://h.example:8443/{path}?u={uid}'}\n"),
        expected: []),
    DiagnosticCase(
        name: "webhook url with a placeholder in the query only",
        yaml: rule("    match: {any: true}\n    webhook: {url: 'https://h.example?u={uid}'}\n"),
        expected: []),
    DiagnosticCase(
        name: "program from the tag", yaml: rule("    match: {any: true}\n    run: ['{uri}']\n"),
        expected: [
            "f.yaml:5:11: error: the program '{uri}' has a placeholder: write it literally (tag data may only be a later argument)"
        ]),
    DiagnosticCase(
        name: "program path from the tag",
        yaml: rule("    match: {any: true}\n    run: {argv: ['/usr/bin/{text}', x]}\n"),
        expected: [
            "f.yaml:5:18: error: the program '/usr/bin/{text}' has a placeholder: write it literally (tag data may only be a later argument)"
        ]),
    DiagnosticCase(
        name: "open of the tag's URI in a rule matching by UID",
        yaml: rule("    match: {uid: ['04A1']}\n    open: '{uri}'\n"),
        expected: [
            "f.yaml:5:11: warning: 'open' takes the URI's scheme from the tag and the rule's match allows any scheme: the tag chooses the program that opens it (add 'schemes' or 'domains' to 'match')"
        ]),
    DiagnosticCase(
        name: "open with a scheme from the tag in an action list",
        yaml: rule("    match: {any: true}\n    actions: [{open: '{scheme}://x'}]\n"),
        expected: [
            "f.yaml:5:22: warning: 'open' takes the URI's scheme from the tag and the rule's match allows any scheme: the tag chooses the program that opens it (add 'schemes' or 'domains' to 'match')"
        ]),
    DiagnosticCase(
        name: "open with a literal scheme", yaml: rule("    match: {any: true}\n    open: 'https://e.com/?u={uid}'\n"),
        expected: []),
    DiagnosticCase(
        name: "open of the tag's URI in a rule matching schemes",
        yaml: rule("    match: {schemes: [spotify]}\n    open: '{uri}'\n"),
        expected: []),
    DiagnosticCase(
        name: "open of the tag's URI in a rule matching domains",
        yaml: rule("    match: {domains: [e.com]}\n    open: '{uri}'\n"),
        expected: []),
    // Issue 29: a mapping key is a string; a list, a mapping or an alias as a key is refused before composing.
    DiagnosticCase(
        name: "a list as a key", yaml: "version: 1\n? [a]\n: 1\nrules: []\n",
        expected: ["f.yaml:2:3: error: a mapping key must be a string, not a list"]),
    DiagnosticCase(
        name: "a mapping as a key", yaml: "version: 1\nrules:\n  - {name: r, match: {any: true}, open: x, {a: 1}: 2}\n",
        expected: ["f.yaml:3:44: error: a mapping key must be a string, not a mapping"]),
    DiagnosticCase(
        name: "an alias as a key", yaml: "version: 1\nx: &k name\nrules:\n  - {*k : r, match: {any: true}, open: x}\n",
        expected: ["f.yaml:4:6: error: a mapping key must be a string, not an alias (aliases may only be values)"]),
    DiagnosticCase(
        name: "an alias as a value",
        yaml:
            "version: 1\nrules:\n  - {name: a, match: &m {any: true}, continue: true, open: x}\n  - {name: b, match: *m, open: y}\n",
        expected: []),
]

@Test(arguments: catalogue)
func validationCatalogue(fact: DiagnosticCase) {
    let result = RuleSet.load(files: [("f.yaml", fact.yaml)], environment: ["PATH": "/usr/bin:/bin"])
    #expect(result.diagnostics.map(\.headline) == fact.expected)
    if fact.expected.contains(where: { $0.contains(": error: ") }) {
        #expect(result.ruleSet == nil)
    } else {
        #expect(result.ruleSet != nil)
    }
}

@Test func diagnosticRendersLineAndCaret() {
    let yaml = "version: 1\nrules:\n  - name: front-door\n    match: {any: true}\n    comand: [x]\n"
    let result = RuleSet.load(files: [("rules/door.yaml", yaml)], environment: [:])
    #expect(
        result.diagnostics.map(\.description) == [
            "rules/door.yaml:3:5: error: rule 'front-door' has no action (add 'run', 'open', 'webhook', 'mqtt' or 'actions')\n  - name: front-door\n    ^",
            "rules/door.yaml:5:5: error: unknown key 'comand' in rule 'front-door'\n    comand: [x]\n    ^",
        ])
}

@Test func everyProblemOfEveryFileInOnePass() {
    let first =
        "version: 1\nrules:\n  - name: a\n    match: {domains: [e.com/x]}\n    open: x\n  - name: b\n    match: {}\n    open: x\n"
    let second = "version: 3\nrules:\n  - name: a\n    match: {uid: [zz]}\n    open: x\n"
    let result = RuleSet.load(files: [("1.yaml", first), ("2.yaml", second)], environment: [:])
    #expect(
        result.diagnostics.map(\.headline) == [
            "1.yaml:4:23: error: domain 'e.com/x' must not contain a path, query or fragment (use 'components')",
            "1.yaml:7:12: error: empty 'match' in rule 'b' (write 'any: true' to match every tag)",
            "2.yaml:1:10: error: unknown version '3' (expected 1)",
            "2.yaml:3:11: error: duplicate rule name 'a' (first defined at 1.yaml:3:11)",
            "2.yaml:4:19: error: UID 'zz' is not hex (expected like 04A1B2C3D4E580 or 04:a1:b2:c3)",
        ])
}

@Test func secretValuesNeverAppearInDiagnostics() {
    let yaml = rule("    match: {domains: ['${HOST}/x']}\n    open: x\n")
    let result = RuleSet.load(files: [("f.yaml", yaml)], environment: ["HOST": "hunter2.example"])
    #expect(
        result.diagnostics.map(\.headline) == [
            "f.yaml:4:23: error: domain '${HOST}/x' must not contain a path, query or fragment (use 'components')"
        ])
    #expect(!result.diagnostics.map(\.description).joined().contains("hunter2"))
}

/// Issue 29: the schemes a rule's match allows, for the opener to refuse others: `schemes` lower-cased, `http`
/// and `https` for `domains`, nil (any) for a rule matching by UID.
@Test func allowedSchemesFollowTheMatch() throws {
    let yaml = """
        version: 1
        rules:
          - {name: s, match: {schemes: [Spotify, tel], domains: [open]}, continue: true, open: '{uri}'}
          - {name: d, match: {domains: [e.com]}, continue: true, open: '{uri}'}
          - {name: u, match: {uid: ['04A1']}, open: 'https://e.com/'}
        """
    let ruleSet = try RuleSet.load(files: [("f.yaml", yaml)], environment: [:]).get()
    #expect(ruleSet.rules.map(\.allowedSchemes) == [["spotify", "tel"], ["http", "https"], nil])
}
