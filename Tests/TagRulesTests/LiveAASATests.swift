import Foundation
import TagRules
import Testing

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
private let fixtureData = FileManager.default.contents(
    atPath: fixtures.appendingPathComponent("apple-app-site-association").path)!

private func load(_ match: String) -> LoadResult {
    RuleSet.load(files: [("f.yaml", RuleFixture.file(match: match))], environment: [:], directory: fixtures.path)
}

/// Live `aasa:` written wrong: each problem is reported at its place (docs/rules.md, "Live association files").
@Test(
    arguments: [
        ("{aasa: {appID: A.b}}", "f.yaml:6:19: error: 'aasa' needs a 'domain' in rule 'r'"),
        (
            "{aasa: {domain: '*.e.com'}}",
            "f.yaml:6:28: error: the domain of 'aasa' must be one host name, without '*.' or a port (got '*.e.com')"
        ),
        (
            "{aasa: {domain: 'e.com:8443'}}",
            "f.yaml:6:28: error: the domain of 'aasa' must be one host name, without '*.' or a port (got 'e.com:8443')"
        ),
        (
            "{domains: [e.com], aasa: {domain: e.com}}",
            "f.yaml:6:13: error: 'aasa' with a 'domain' sets the rule's domain: remove 'domains' in rule 'r'"
        ),
        (
            "{aasa: {domain: e.com}, appID: A.b}",
            "f.yaml:6:36: error: write 'appID' inside 'aasa' when it names a domain in rule 'r'"
        ),
        (
            "{aasa: {domain: e.com, appId: A.b}}",
            "f.yaml:6:35: error: unknown key 'appId' in 'aasa' in rule 'r' (did you mean 'appID'?)"
        ),
        (
            "{aasa: {domain: 'https://e.com'}}",
            "f.yaml:6:28: error: domain 'https://e.com' must not contain a scheme (use 'schemes')"
        ),
    ] as [(String, String)])
func liveAASAWrittenWrong(match: String, expected: String) {
    let result = load(match)
    #expect(result.ruleSet == nil)
    #expect(result.diagnostics.map(\.headline) == [expected])
}

/// A live file never fetched: the rule matches nothing, and `explain` says why.
@Test func neverFetchedMatchesNothingAndSaysSo() throws {
    let ruleSet = try #require(load("{aasa: {domain: E.com, appID: ABCDE12345.com.example.app}}").ruleSet)
    #expect(ruleSet.liveDomains == ["e.com"])
    #expect(ruleSet.associatedDomains.map(\.rule) == ["r"])
    #expect(ruleSet.associatedDomains.map(\.appID) == ["ABCDE12345.com.example.app"])
    let event = RuleFixture.event(uri: "https://e.com/shop/1?ref=x")
    #expect(ruleSet.match(event).isEmpty)
    #expect(ruleSet.applying([:]).match(event).isEmpty)
    let explanation = try #require(ruleSet.explain(event).first)
    #expect(explanation.verdict == .noMatch)
    #expect(
        explanation.reason
            == "aasa: the association file of e.com has not been fetched yet, so the rule matches nothing "
            + "(tagrouter aasa refresh fetches it)")
    #expect(ruleSet.unavailableReason(of: "r") == explanation.reason)
}

/// A fetched file's components decide exactly as the same file imported locally (the same code path).
@Test(
    arguments: [
        ("ABCDE12345.com.example.app", "https://e.com/shop/1?ref=x"),
        ("ABCDE12345.com.example.app", "https://e.com/shop/1"),
        ("ABCDE12345.com.example.app", "https://e.com/buy/1?ref=x"),
        ("ABCDE12345.com.example.app", "http://e.com/shop/1?ref=x"),
        ("ABCDE12345.com.example.app", "https://other.com/shop/1?ref=x"),
        ("ABCDE12345.com.example.old", "https://e.com/old/1"),
        ("ABCDE12345.com.example.old", "https://e.com/old/secret/1"),
        ("ABCDE12345.com.example.old", "https://e.com/shop/1?ref=x"),
    ] as [(String, String)])
func fetchedFileMatchesAsTheLocalImport(appID: String, uri: String) throws {
    let local = try #require(load("{domains: [e.com], aasa: apple-app-site-association, appID: \(appID)}").ruleSet)
    let live = try #require(load("{aasa: {domain: e.com, appID: \(appID)}}").ruleSet)
        .applying(["e.com": AssociationFile(data: fixtureData, fetchedAt: Date())])
    let event = RuleFixture.event(uri: uri)
    #expect(live.match(event).map(\.rule.name) == local.match(event).map(\.rule.name))
    // The same reasons; only where `aasa` is written differs (the live mapping starts at column 19, the file
    // name at column 37).
    let liveReasons = live.explain(event).map { $0.reason.replacingOccurrences(of: "f.yaml:6:19", with: "f.yaml:6:37") }
    #expect(liveReasons == local.explain(event).map(\.reason))
    #expect(live.unavailableReason(of: "r") == nil)
    #expect(live.liveComponentSummaries(of: "r")?.isEmpty == false)
}

/// The expected verdicts themselves, so the comparison above cannot pass with both sides wrong.
@Test func fetchedFileVerdicts() throws {
    let live = try #require(load("{aasa: {domain: e.com, appID: ABCDE12345.com.example.app}}").ruleSet)
        .applying(["e.com": AssociationFile(data: fixtureData, fetchedAt: Date())])
    #expect(live.match(RuleFixture.event(uri: "https://e.com/shop/1?ref=x")).count == 1)
    #expect(live.match(RuleFixture.event(uri: "https://e.com/buy/1?ref=x")).isEmpty)
    #expect(live.match(RuleFixture.event(uri: "https://other.com/shop/1?ref=x")).isEmpty)
    #expect(
        live.liveComponentSummaries(of: "r") == [
            #"{"/": "/buy/*", "exclude": true}"#, #"{"/": "/shop/*", "?": {"ref": "?*"}}"#,
        ])
    // Swapping the file out again: the rule matches nothing.
    #expect(live.applying([:]).match(RuleFixture.event(uri: "https://e.com/shop/1?ref=x")).isEmpty)
}

/// Files the rule cannot use: refused by `problem(with:for:)` (the router keeps its last good copy), and a
/// rule given one anyway matches nothing and says why.
@Test(
    arguments: [
        ("{not json", "not a valid AASA file: not valid JSON"),
        (#"{"applinks": []}"#, "not a valid AASA file: no 'applinks' object"),
        (
            #"{"applinks": {"details": {"appIDs": []}}}"#,
            "not a valid AASA file: 'applinks.details' is not a list of objects"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": 7}]}]}}"#,
            "not a valid AASA file: a component object has a key of the wrong type"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["X.other"], "components": []}]}}"#,
            "not a valid AASA file: no 'details' entry for appID 'ABCDE12345.com.example.app'"
        ),
        (
            #"{"applinks": {"substitutionVariables": {"a": "b"}, "details": []}}"#,
            "not a valid AASA file: 'applinks.substitutionVariables' is not an object of string lists"
        ),
        (
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/$(nope)"}]}]}}"#,
            "a pattern is invalid: unknown substitution variable '$(nope)'"
        ),
    ] as [(String, String)])
func unusableFile(body: String, reason: String) throws {
    let ruleSet = try #require(load("{aasa: {domain: e.com, appID: ABCDE12345.com.example.app}}").ruleSet)
    let data = Data(body.utf8)
    #expect(ruleSet.problem(with: data, for: "e.com") == "e.com: \(reason) (for rule 'r' at f.yaml:6:19)")
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    let applied = ruleSet.applying(["e.com": AssociationFile(data: data, fetchedAt: date)])
    #expect(applied.match(RuleFixture.event(uri: "https://e.com/shop/1?ref=x")).isEmpty)
    #expect(
        applied.unavailableReason(of: "r")
            == "aasa: the association file of e.com fetched 2027-01-15T08:00:00Z cannot be used: \(reason), so the "
            + "rule matches nothing")
}

/// Over 128 KB: refused even if a fetcher let it through.
@Test func largerThan128KB() throws {
    let ruleSet = try #require(load("{aasa: {domain: e.com}}").ruleSet)
    let padding = String(repeating: " ", count: 128 * 1024)
    let data = Data((#"{"applinks": {"details": []}}"# + padding).utf8)
    #expect(ruleSet.problem(with: data, for: "e.com") == "e.com: larger than 128 KB (for rule 'r' at f.yaml:6:19)")
}

/// The file's domain files the rule in the index: other hosts never reach it, other rules keep their order.
@Test func liveRuleAmongOthers() throws {
    let yaml = """
        version: 1
        rules:
          - name: live
            match: {aasa: {domain: e.com}}
            open: "{uri}"
          - name: fallback
            match: {domains: [e.com, f.com]}
            open: "{uri}"
        """
    let ruleSet = try #require(RuleFixture.load(yaml).ruleSet)
        .applying(["e.com": AssociationFile(data: fixtureData, fetchedAt: Date())])
    #expect(ruleSet.match(RuleFixture.event(uri: "https://e.com/shop/1?ref=x")).map(\.rule.name) == ["live"])
    #expect(ruleSet.match(RuleFixture.event(uri: "https://e.com/buy/1")).map(\.rule.name) == ["fallback"])
    #expect(ruleSet.match(RuleFixture.event(uri: "https://f.com/shop/1?ref=x")).map(\.rule.name) == ["fallback"])
}
