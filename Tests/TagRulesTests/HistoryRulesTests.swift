import TagRules
import Testing

/// The `history:` block: retention by age and size, every error at file:line:col (docs/operations.md, "Retention
/// of the history").
@Suite struct HistoryRulesTests {
    static func file(_ history: String) -> String {
        "version: 1\n" + history + "rules:\n  - name: r\n    match: {any: true}\n    run: [/bin/true]\n"
    }

    typealias Case = DiagnosticCase

    static let errors: [Case] = [
        Case(
            name: "not a duration", yaml: file("history:\n  keep: 400days\n"),
            expected: ["f.yaml:3:9: error: 'keep' '400days' is not a duration (write 500ms, 2s, 1m, 1h or 0)"]),
        Case(
            name: "too short", yaml: file("history:\n  keep: 10m\n"),
            expected: ["f.yaml:3:9: error: 'keep' must be at least 1h (write 400d for 400 days)"]),
        Case(
            name: "not a size", yaml: file("history: {maxSize: 2G}\n"),
            expected: ["f.yaml:2:20: error: 'maxSize' '2G' is not a size (write 500MB, 2GB or 1GiB)"]),
        Case(
            name: "too small", yaml: file("history: {maxSize: 512KiB}\n"),
            expected: ["f.yaml:2:20: error: 'maxSize' must be at least 1MB"]),
        Case(
            name: "an unknown key, and every problem reported",
            yaml: file("history:\n  keep: 1m\n  maxsize: 1GB\n"),
            expected: [
                "f.yaml:3:9: error: 'keep' must be at least 1h (write 400d for 400 days)",
                "f.yaml:4:3: error: unknown key 'maxsize' in 'history' (did you mean 'maxSize'?)",
            ]),
        Case(
            name: "not a mapping", yaml: file("history: 400d\n"),
            expected: ["f.yaml:2:10: error: 'history' must be a mapping, not a string"]),
    ]

    @Test(arguments: errors)
    func errorsAreReportedAtTheirPlace(fact: Case) {
        let result = RuleSet.load(files: [("f.yaml", fact.yaml)], environment: [:])
        #expect(result.diagnostics.map(\.headline) == fact.expected)
        #expect(result.ruleSet == nil)
    }

    @Test(
        arguments: [
            ("history: {keep: 400d, maxSize: 2GB}\n", 400 * 86_400, 2_000_000_000),
            ("history: {keep: 36h}\n", 36 * 3600, nil),
            ("history: {maxSize: 1GiB}\n", nil, 1 << 30),
            ("history: {maxSize: 1500MB}\n", nil, 1_500_000_000),
            ("history: {}\n", nil, nil),
        ] as [(String, Int64?, Int64?)])
    func valuesAreParsed(yaml: String, seconds: Int64?, bytes: Int64?) throws {
        let set = try RuleSet.load(files: [("f.yaml", Self.file(yaml))], environment: [:]).get()
        let history = try #require(set.history)
        #expect(history.keep == seconds.map { .seconds($0) })
        #expect(history.maxSize == bytes)
        #expect(history.location.description == "f.yaml:2:1")
    }

    @Test func withoutABlockThereIsNone() throws {
        #expect(try RuleSet.load(files: [("f.yaml", Self.file(""))], environment: [:]).get().history == nil)
    }

    @Test func aSecondBlockIsAnErrorNamingTheFirst() {
        let result = RuleSet.load(
            files: [
                ("a.yaml", Self.file("history: {keep: 30d}\n")), ("b.yaml", "version: 1\nhistory: {}\nrules: []\n"),
            ],
            environment: [:])
        #expect(
            result.diagnostics.map(\.headline) == [
                "b.yaml:2:1: error: a second 'history' block (a rule set has one; the first is at a.yaml:2:1)"
            ])
    }
}
