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
