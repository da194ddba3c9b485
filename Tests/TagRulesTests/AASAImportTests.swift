import Foundation
import TagRules
import Testing

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

private func load(_ match: String) -> LoadResult {
    RuleSet.load(files: [("f.yaml", RuleFixture.file(match: match))], environment: [:], directory: fixtures.path)
}

@Test(
    arguments: [
        ("appID: ABCDE12345.com.example.app", "https://e.com/shop/1?ref=x", true),
        ("appID: ABCDE12345.com.example.app", "https://e.com/shop/1", false),
        ("appID: ABCDE12345.com.example.app", "https://e.com/buy/1?ref=x", false),
        ("appID: ABCDE12345.com.example.app", "https://e.com/old/1", false),
        ("appID: ABCDE12345.com.example.old", "https://e.com/old/1", true),
        ("appID: ABCDE12345.com.example.old", "https://e.com/old/secret/1", false),
        ("", "https://e.com/old/1", true),
        ("", "https://e.com/shop/1?ref=y", true),
    ] as [(String, String, Bool)])
func aasaImport(appID: String, uri: String, expected: Bool) throws {
    let extra = appID.isEmpty ? "" : ", \(appID)"
    let result = load("{domains: [e.com], aasa: apple-app-site-association\(extra)}")
    let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
    #expect(ruleSet.match(RuleFixture.event(uri: uri)).isEmpty != expected)
}

@Test func aasaThatIsNotValid() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("{not json".utf8).write(to: directory.appendingPathComponent("broken.json"))
    try Data(#"{"webcredentials": {}}"#.utf8).write(to: directory.appendingPathComponent("other.json"))
    for (file, why) in [("broken.json", "not valid JSON"), ("other.json", "no 'applinks' object")] {
        let yaml = RuleFixture.file(match: "{domains: [e.com], aasa: \(file)}")
        let result = RuleSet.load(files: [("f.yaml", yaml)], environment: [:], directory: directory.path)
        #expect(
            result.diagnostics.map(\.headline) == ["f.yaml:6:37: error: '\(file)' is not a valid AASA file: \(why)"])
    }
    let yaml = RuleFixture.file(match: "{domains: [e.com], aasa: apple-app-site-association, appID: X.y}")
    let result = RuleSet.load(files: [("f.yaml", yaml)], environment: [:], directory: fixtures.path)
    #expect(
        result.diagnostics.map(\.headline) == [
            "f.yaml:6:37: error: 'apple-app-site-association' is not a valid AASA file: no 'details' entry for appID 'X.y'"
        ])
}

/// An AASA file's `defaults` (file-wide and per `details` entry) apply under each component's own settings, as
/// Apple documents for `applinks` (docs/rules.md, "Importing an AASA file").
@Test(
    arguments: [
        // File default caseSensitive false: /Shop/ matches /shop/*.
        (
            #"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["A.b"], "components": [{"/": "/shop/*"}]}]}}"#,
            "https://e.com/SHOP/1", true
        ),
        // Without defaults, case matters.
        (
            #"{"applinks": {"details": [{"appIDs": ["A.b"], "components": [{"/": "/shop/*"}]}]}}"#,
            "https://e.com/SHOP/1", false
        ),
        // The entry's defaults override the file's.
        (
            #"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["A.b"], "defaults": {"caseSensitive": true}, "components": [{"/": "/shop/*"}]}]}}"#,
            "https://e.com/SHOP/1", false
        ),
        // The component's own setting overrides both.
        (
            #"{"applinks": {"defaults": {"caseSensitive": true}, "details": [{"appIDs": ["A.b"], "defaults": {"caseSensitive": true}, "components": [{"/": "/shop/*", "caseSensitive": false}]}]}}"#,
            "https://e.com/SHOP/1", true
        ),
        // A defaults object is a component the others inherit from (swcutil runs of the blazingly-aasa conformance
        // corpus, conformance/oracle/swcutil-gap-probes.tsv): its '/' applies to a component without one...
        (
            ##"{"applinks": {"defaults": {"/": "/foo/*"}, "details": [{"appIDs": ["A.b"], "components": [{"#": "*"}]}]}}"##,
            "https://e.com/bar", false
        ),
        (
            ##"{"applinks": {"defaults": {"/": "/foo/*"}, "details": [{"appIDs": ["A.b"], "components": [{"#": "*"}]}]}}"##,
            "https://e.com/foo/1", true
        ),
        (
            ##"{"applinks": {"details": [{"appIDs": ["A.b"], "defaults": {"/": "/foo/*"}, "components": [{"#": "*"}]}]}}"##,
            "https://e.com/bar", false
        ),
        // ...its 'exclude' turns a match into a block...
        (
            #"{"applinks": {"defaults": {"exclude": true}, "details": [{"appIDs": ["A.b"], "components": [{"/": "/bar"}]}]}}"#,
            "https://e.com/bar", false
        ),
        // ...its '?' applies too...
        (
            #"{"applinks": {"defaults": {"?": {"id": "??"}}, "details": [{"appIDs": ["A.b"], "components": [{"/": "/bar"}]}]}}"#,
            "https://e.com/bar?id=7", false
        ),
        (
            #"{"applinks": {"defaults": {"?": {"id": "??"}}, "details": [{"appIDs": ["A.b"], "components": [{"/": "/bar"}]}]}}"#,
            "https://e.com/bar?id=75", true
        ),
        // ...and a component's own key wins (derived: "the more specific definition overrides the less specific").
        (
            #"{"applinks": {"defaults": {"/": "/foo/*"}, "details": [{"appIDs": ["A.b"], "components": [{"/": "/bar"}]}]}}"#,
            "https://e.com/bar", true
        ),
        // percentEncoded false from the entry: the pattern compares with the decoded path.
        (
            #"{"applinks": {"details": [{"appIDs": ["A.b"], "defaults": {"percentEncoded": false}, "components": [{"/": "/caf\u00e9"}]}]}}"#,
            "https://e.com/caf%C3%A9", true
        ),
    ] as [(String, String, Bool)])
func aasaDefaults(file: String, uri: String, expected: Bool) throws {
    let result = try loadImporting(file)
    let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
    #expect(ruleSet.match(RuleFixture.event(uri: uri)).isEmpty != expected)
}

@Test func aasaDefaultsOfTheWrongTypeAreRefused() throws {
    let result = try loadImporting(
        #"{"applinks": {"defaults": {"caseSensitive": "no"}, "details": [{"appIDs": ["A.b"], "paths": ["*"]}]}}"#)
    #expect(
        result.diagnostics.map(\.headline) == [
            "f.yaml:6:37: error: 'aasa.json' is not a valid AASA file: 'applinks.defaults' is not a component "
                + "object, or has a key of the wrong type"
        ])
}

/// Loads a rule for `e.com` that imports `file`, written as `aasa.json` in a folder of its own.
private func loadImporting(_ file: String) throws -> LoadResult {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(file.utf8).write(to: directory.appendingPathComponent("aasa.json"))
    let yaml = RuleFixture.file(match: "{domains: [e.com], aasa: aasa.json}")
    return RuleSet.load(files: [("f.yaml", yaml)], environment: [:], directory: directory.path)
}
