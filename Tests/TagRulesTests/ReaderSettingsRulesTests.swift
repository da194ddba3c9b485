import ReaderFeedback
import TagRules
import Testing

/// `readers:` and a rule's `feedback:` (docs/rules.md, "`readers:`: what the reader shows"): parsed into values,
/// the family's defaults filled in, and every mistake reported at its place.
struct ReaderSettingsRulesTests {
    static let file = """
        version: 1
        readers:
          - name: "*ACR122*"
            family: acr122u
            quiet: true
            feedback:
              accepted: { led: green, beep: short }
              denied:   { led: red, beep: long, blink: 3 }
              ignored:  none
              failed:   { led: red, blink: 2 }
              asking:   { led: orange }
          - name: "Virtual PCD*"
        rules:
          - name: front-door
            match: { any: true }
            run: [/bin/true]
            feedback: { accepted: { led: green, beep: twice } }
          - name: plain
            match: { any: true }
            run: [/bin/true]

        """

    @Test("the issue's example loads: the entry, its family, quiet mode, every outcome, and the rule's override")
    func example() throws {
        let rules = try RuleSet.load(files: [("r.yaml", Self.file)], environment: [:]).get()
        #expect(rules.readers.count == 2)
        let acr = try #require(rules.readerSettings(for: "ACS ACR122U PICC Interface 00 00"))
        #expect(acr.family == .acr122u)
        #expect(acr.quiet)
        #expect(acr.location.line == 3)
        let plan = acr.plan(for: nil)
        #expect(plan[.accepted] == FeedbackSignal(led: .green, beep: .short))
        #expect(plan[.denied] == FeedbackSignal(led: .red, beep: .long, blink: 3))
        #expect(plan[.ignored] == nil)
        #expect(plan[.failed] == FeedbackSignal(led: .red, blink: 2))
        #expect(plan[.asking] == FeedbackSignal(led: .orange))
        let door = try #require(rules.rules.first { $0.name == "front-door" })
        #expect(door.feedback?[.accepted] == FeedbackSignal(led: .green, beep: .twice))
        #expect(plan.merging(door.feedback!)[.accepted] == FeedbackSignal(led: .green, beep: .twice))
        #expect(plan.merging(door.feedback!)[.denied] == plan[.denied])
        #expect(rules.rules.first { $0.name == "plain" }?.feedback == nil)
        // An entry that writes no feedback takes its family's defaults; the first matching entry wins.
        let virtual = try #require(rules.readerSettings(for: "Virtual PCD 00 00"))
        #expect(virtual.quiet == false)
        #expect(virtual.plan(for: .vpcd) == ReaderFamily.vpcd.defaultPlan)
        #expect(virtual.plan(for: .omnikey)[.accepted] == nil)
        #expect(rules.readerSettings(for: "HID OMNIKEY 5022") == nil)
    }

    @Test(
        "every mistake is reported at its place",
        arguments: [
            ("readers: {name: x}", "r.yaml:2:10: error: 'readers' must be a list, not a mapping"),
            ("readers: [{family: acr122u}]", "r.yaml:2:11: error: 'readers' entry #1 has no 'name'"),
            (
                "readers: [{name: x, family: acr122}]",
                "r.yaml:2:29: error: unknown reader family 'acr122' (did you mean 'acr122u'?)"
            ),
            ("readers: [{name: x, colour: red}]", "r.yaml:2:21: error: unknown key 'colour' in 'readers' entry #1"),
            ("readers: [{name: x, quiet: maybe}]", "r.yaml:2:28: error: 'quiet' must be true or false, not 'maybe'"),
            (
                "readers: [{name: x, feedback: {acepted: none}}]",
                "r.yaml:2:32: error: unknown key 'acepted' in 'feedback' in 'readers' entry #1 (did you mean 'accepted'?)"
            ),
            (
                "readers: [{name: x, feedback: {accepted: {led: blue}}}]",
                "r.yaml:2:48: error: 'led' in 'accepted' in 'readers' entry #1 is one of green, red, orange, off, not 'blue'"
            ),
            (
                "readers: [{name: x, feedback: {denied: {beep: thrice}}}]",
                "r.yaml:2:47: error: 'beep' in 'denied' in 'readers' entry #1 is one of short, long, twice, none, not 'thrice'"
            ),
            (
                "readers: [{name: x, feedback: {failed: {led: red, blink: 0}}}]",
                "r.yaml:2:58: error: 'blink' in 'failed' in 'readers' entry #1 must be a count from 1 to 255, not '0'"
            ),
            (
                "readers: [{name: x, feedback: {failed: {blink: 2}}}]",
                "r.yaml:2:48: error: 'blink' in 'failed' in 'readers' entry #1 needs a colour to blink: add 'led: green', 'red' or 'orange'"
            ),
            (
                "readers: [{name: x, feedback: {ignored: nothing}}]",
                "r.yaml:2:41: error: 'ignored' in 'readers' entry #1 must be 'none' or a mapping like { led: green, beep: short }, not 'nothing'"
            ),
            ("readers: [{name: \"$(nope)\"}]", "r.yaml:2:19: error: unknown substitution variable '$(nope)'"),
        ])
    func mistakes(line: String, expected: String) {
        let text = "version: 1\n\(line)\nrules:\n  - name: r\n    match: { any: true }\n    run: [/bin/true]\n"
        let result = RuleSet.load(files: [("r.yaml", text)], environment: [:])
        #expect(result.ruleSet == nil)
        #expect(
            result.diagnostics.contains { $0.headline.hasPrefix(expected) }, "\(result.diagnostics.map(\.headline))")
    }

    @Test("every problem of a file is reported, not only the first; a rule's feedback is checked too")
    func everyProblem() {
        let text = """
            version: 1
            readers:
              - name: x
                family: acme
                feedback: { accepted: { led: purple } }
            rules:
              - name: r
                match: { any: true }
                run: [/bin/true]
                feedback: { denied: { beep: loud } }

            """
        let result = RuleSet.load(files: [("r.yaml", text)], environment: [:])
        let lines = result.diagnostics.filter { $0.severity == .error }.map(\.line)
        #expect(lines == [4, 5, 10], "\(result.diagnostics.map(\.headline))")
    }

    @Test("warnings: a pattern listed twice (in another file too), quiet on a family without quiet mode")
    func warnings() throws {
        let first = "version: 1\nreaders: [{name: \"*ACR*\"}]\nrules: []\n"
        let second = "version: 1\nreaders: [{name: \"*ACR*\"}, {name: y, family: omnikey, quiet: true}]\nrules: []\n"
        let result = RuleSet.load(files: [("a.yaml", first), ("b.yaml", second)], environment: [:])
        let warnings = result.diagnostics.filter { $0.severity == .warning }.map(\.headline)
        #expect(
            warnings.contains(
                "b.yaml:2:18: warning: reader pattern '*ACR*' is listed again (the first entry, at a.yaml:2:18, wins)"),
            "\(warnings)")
        #expect(
            warnings.contains("b.yaml:2:62: warning: reader family 'omnikey' has no quiet mode: 'quiet' has no effect"),
            "\(warnings)")
        let rules = try #require(result.ruleSet)
        #expect(rules.readers.count == 3)
    }
}
