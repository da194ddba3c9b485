import Testing

@testable import TagRules

/// Tags with an ISO/IEC 14443-3 random ID (4 bytes from `08`): a new UID at every tap, so an entry by UID never
/// matches (docs/cli.md, "tagrouter learn").
@Suite struct RandomIDTests {
    @Test("a 4-byte UID from 08 is a random ID; 7-byte UIDs and other first bytes are not")
    func randomID() {
        #expect(KnownTags.isRandomID("08A1B2C3"))
        #expect(KnownTags.isRandomID("08a1b2c3"))
        #expect(!KnownTags.isRandomID("04A1B2C3"))
        #expect(!KnownTags.isRandomID("08A1B2C3D4E580"))
        #expect(!KnownTags.isRandomID("08A1B2"))
    }

    @Test("the tags file warns, with file:line:col, for each entry with a random ID; the file still loads")
    func warnings() throws {
        let text = """
            version: 1
            tags:
              - name: alice
                uid: "04A1B2C3D4E580"
              - name: phone
                uid: "08:1f:2e:3d"
              - uid: "08AABBCC"
                name: "desfire"
            """
        let loaded = RuleSet.load(files: [("rules/tags.yaml", text)], environment: [:], directory: "rules")
        let ruleSet = try #require(loaded.ruleSet, "\(loaded.diagnostics)")
        let warnings = ruleSet.tags.randomIDWarnings(text: text)
        #expect(warnings.map(\.severity) == [.warning, .warning])
        #expect(
            warnings.first?.headline
                == "rules/tags.yaml:5:11: warning: tag 'phone' has the UID 081F2E3D, a random ID (4 bytes from 08, "
                + "new at every tap): it will never match; admit the tag by its SUN message with a `sun` rule, or "
                + "use a tag with Random ID turned off")
        #expect(warnings.first?.sourceLine == "  - name: phone")
        #expect(
            warnings.last?.headline.hasPrefix("rules/tags.yaml:8:11: warning: tag 'desfire' has the UID 08AABBCC")
                == true)
        // `check` and every load report them.
        #expect(loaded.diagnostics.map(\.headline) == warnings.map(\.headline))
        #expect(KnownTags().randomIDWarnings().isEmpty)
    }
}
