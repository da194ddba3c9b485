import TagRules
import Testing

/// A door rule's `lockout:`: parsing, and every error at file:line:col (docs/doors.md, "Lockout").
@Suite struct LockoutRulesTests {
    static func file(_ lockout: String, match: String = "{ uid: [\"04A1\"] }", denied: Bool = true) -> String {
        "version: 1\nrules:\n  - name: door\n    match: \(match)\n    run: [/bin/true]\n"
            + (denied ? "    denied: { run: [/bin/false] }\n" : "") + "    lockout: \(lockout)\n"
    }

    typealias Case = DiagnosticCase

    static let errors: [Case] = [
        Case(
            name: "after is not a count", yaml: file("{ after: five, within: 1m, for: 5m }"),
            expected: ["f.yaml:7:23: error: 'after' must be a whole number of refusals from 1 to 1000, not 'five'"]),
        Case(
            name: "after is 0", yaml: file("{ after: 0, within: 1m, for: 5m }"),
            expected: ["f.yaml:7:23: error: 'after' must be a whole number of refusals from 1 to 1000, not '0'"]),
        Case(
            name: "within is not a duration", yaml: file("{ after: 5, within: a minute, for: 5m }"),
            expected: ["f.yaml:7:34: error: 'within' 'a minute' is not a duration (write 500ms, 2s, 1m, 1h or 0)"]),
        Case(
            name: "for is too long", yaml: file("{ after: 5, within: 1m, for: 2d }"),
            expected: ["f.yaml:7:43: error: 'for' must be from 1s to 1d, not '2d'"]),
        Case(
            name: "a key missing, an unknown one, every problem reported",
            yaml: file("{ after: 5, during: 1m, for: 0 }"),
            expected: [
                "f.yaml:7:14: error: 'lockout' in rule 'door' needs 'within' (write { after: 5, within: 1m, for: 5m })",
                "f.yaml:7:26: error: unknown key 'during' in 'lockout' in rule 'door'",
                "f.yaml:7:43: error: 'for' must be from 1s to 1d, not '0'",
            ]),
        Case(
            name: "not a door rule", yaml: file("{ after: 5, within: 1m, for: 5m }", denied: false),
            expected: [
                "f.yaml:6:5: error: 'lockout' needs a door rule, one that refuses tags ('tags', 'when', 'sun' or 'denied') in rule 'door'"
            ]),
        Case(
            name: "not a mapping", yaml: file("5"),
            expected: ["f.yaml:7:14: error: 'lockout' must be a mapping, not a string"]),
    ]

    @Test(arguments: errors)
    func errorsAreReportedAtTheirPlace(fact: Case) {
        let result = RuleSet.load(files: [("f.yaml", fact.yaml)], environment: [:])
        #expect(result.diagnostics.map(\.headline) == fact.expected)
        #expect(result.ruleSet == nil)
    }

    @Test func aLockoutIsParsed() throws {
        let set = try RuleSet.load(
            files: [("f.yaml", Self.file("{ after: 5, within: 1m, for: 5m }"))], environment: [:]
        ).get()
        #expect(set.rules[0].lockout == Lockout(after: 5, within: .seconds(60), duration: .seconds(300)))
        #expect(DenialReason(rawValue: "locked-out") == .lockedOut)
    }
}
