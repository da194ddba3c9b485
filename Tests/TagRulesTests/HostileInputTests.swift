import Foundation
import TagRules
import Testing

@Test func backtrackingIsBounded() throws {
    let yaml = RuleFixture.file(
        match: "{domains: [e.com], components: [{'/': '/*a*a*a*a*a*a*a*a*b'}, {'/': '/*$(v)*$(v)*$(v)*$(v)*c'}]}",
        variables: "substitutionVariables: {v: [a, aa, aaa]}")
    let ruleSet = try #require(RuleFixture.load(yaml).ruleSet)
    let uri = "https://e.com/" + String(repeating: "a", count: 4000)
    let start = ContinuousClock.now
    #expect(ruleSet.match(RuleFixture.event(uri: uri)).isEmpty)
    // Not a timing assertion: a record of the cost, which is polynomial (an exponential matcher never returns).
    print("backtracking on 4000 bytes took \(ContinuousClock.now - start)")
}

@Test func aliasBombIsRefused() {
    var yaml = "version: 1\nx0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
    for level in 1...8 {
        let previous = (0..<10).map { _ in "*a\(level - 1)" }.joined(separator: ", ")
        yaml += "x\(level): &a\(level) [\(previous)]\n"
    }
    yaml += "rules: []\n"
    let result = RuleSet.load(files: [("bomb.yaml", yaml)], environment: [:])
    #expect(
        result.diagnostics.map(\.headline) == [
            "bomb.yaml: error: the file has more than 1,000,000 YAML nodes (aliases expanding?)"
        ])
}

/// Issue 29: an alias to a deeply nested anchored structure used as a mapping KEY made composing take seconds
/// (duplicate-key checks hash whole key nodes, about ×9 per level); such keys are refused before composing, at
/// their place, in block (`? *z`) and flow (`{*z : 1}`) form.
@Test(.timeLimit(.minutes(1)), arguments: [("? *a7\n: 1\n", 11, 3), ("k: {*a7 : 1}\n", 11, 5)])
func aliasKeyBombIsRefusedBeforeComposing(key: String, line: Int, column: Int) {
    var yaml = "version: 1\nrules: []\nx0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
    for level in 1...7 {
        yaml += "x\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ",") + "]\n"
    }
    yaml += key
    print("alias key bomb: \(yaml.utf8.count) bytes")
    let result = RuleSet.load(files: [("bomb.yaml", yaml)], environment: [:])
    #expect(
        result.diagnostics.map(\.headline) == [
            "bomb.yaml:\(line):\(column): error: a mapping key must be a string, not an alias (aliases may only be values)"
        ])
    #expect(result.ruleSet == nil)
}

@Test func nonUTF8FileIsADiagnostic() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data([0x76, 0xFF, 0xFE, 0x0A]).write(to: directory.appendingPathComponent("10-bad.yaml"))
    try Data("version: 1\nrules: []\n".utf8).write(to: directory.appendingPathComponent("20-good.yml"))
    try Data("not rules".utf8).write(to: directory.appendingPathComponent("notes.txt"))
    let report = CheckReport(sources: [directory.path], environment: [:])
    #expect(report.diagnostics.map(\.headline) == ["\(directory.path)/10-bad.yaml: error: the file is not UTF-8 text"])
    #expect(report.fileCount == 1)
}

@Test func foldersLoadInByteOrderOfFileName() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for (file, rule) in [("20-b.yaml", "b"), ("10-a.yml", "a"), ("Z-c.yaml", "c"), ("a-d.yaml", "d")] {
        let text = "version: 1\nrules:\n  - {name: \(rule), match: {any: true}, continue: true, open: x}\n"
        try Data(text.utf8).write(to: directory.appendingPathComponent(file))
    }
    let ruleSet = try RuleSet.load(sources: [directory.path], environment: [:]).get()
    #expect(ruleSet.rules.map(\.name) == ["a", "b", "c", "d"])
    let event = RuleFixture.event(uri: nil)
    #expect(ruleSet.match(event).map(\.rule.name) == ["a", "b", "c", "d"])
}

@Test(arguments: [
    "https://[::1]:8080/x", "https://user:pw@e.com:1/", "urn:isbn:0451450523", "mailto:a@b.c", "https:", "h://",
    "https://e.com/%zz", "https://e.com/%", "https://%ff%fe/", "https://e.com/\u{0}", "://x", "1http://e.com",
    String(repeating: "a", count: 100_000) + ":x",
])
func oddURIsNeverCrash(uri: String) throws {
    let yaml = "version: 1\nrules:\n  - {name: r, match: {schemes: [https], domains: ['*.com', e.com]}, open: x}\n"
    let ruleSet = try RuleFixture.load(yaml).get()
    _ = ruleSet.match(RuleFixture.event(uri: uri))
    _ = ruleSet.explain(RuleFixture.event(uri: uri))
    #expect(ruleSet.match(RuleFixture.event(uri: "https://e.com/")).count == 1)
}
