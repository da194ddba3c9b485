import TagRules
import Testing

/// One fact about a non-URI condition: `match`, an event, whether the rule matches.
struct EventCase: CustomStringConvertible, Sendable {
    var match: String
    var event: TagEvent
    var expected: Bool
    var description: String { "\(match) -> \(expected)" }

    init(_ match: String, _ event: TagEvent, _ expected: Bool) {
        self.match = match
        self.event = event
        self.expected = expected
    }
}

private func tag(
    uri: String? = nil, uid: String? = nil, reader: String = "ACS ACR122U PICC Interface 00 00", tech: String = "type2",
    texts: [String] = [], mime: [String] = [], external: [String] = []
) -> TagEvent {
    RuleFixture.event(
        uri: uri, uid: uid, reader: reader, tech: tech, texts: texts, mediaTypes: mime, externalTypes: external)
}

let eventCases: [EventCase] = [
    EventCase("{uid: [04A1B2C3D4E580]}", tag(uid: "04A1B2C3D4E580"), true),
    EventCase("{uid: ['04:a1:b2:c3:d4:e5:80']}", tag(uid: "04A1B2C3D4E580"), true),
    EventCase("{uid: ['04-A1-B2-C3-D4-E5-80', '11 22 33 44']}", tag(uid: "11223344"), true),
    EventCase("{uid: [04A1B2C3D4E580]}", tag(uid: "04A1B2C3D4E581"), false),
    EventCase("{uid: [04A1B2C3D4E580]}", tag(uid: nil), false),
    // A URI that is not valid still lets UID rules match.
    EventCase("{uid: [04A1B2C3D4E580]}", tag(uri: "https://exa mple.com", uid: "04A1B2C3D4E580"), true),
    EventCase("{mime: [text/vcard]}", tag(mime: ["text/vcard"]), true),
    EventCase("{mime: [Text/VCard]}", tag(mime: ["text/vcard"]), true),
    EventCase("{mime: ['application/*']}", tag(mime: ["text/plain", "application/json"]), true),
    EventCase("{mime: ['application/*']}", tag(mime: ["text/plain"]), false),
    EventCase("{mime: [text/plain]}", tag(mime: ["text/plains"]), false),
    EventCase("{external: ['android.com:pkg']}", tag(external: ["android.com:pkg"]), true),
    EventCase("{external: ['Android.com:PKG']}", tag(external: ["android.com:pkg"]), true),
    EventCase("{external: ['example.com:thing']}", tag(external: ["android.com:pkg"]), false),
    EventCase("{text: 'light *'}", tag(texts: ["hello", "light on"]), true),
    EventCase("{text: 'light ?*'}", tag(texts: ["light "]), false),
    EventCase("{text: 'light'}", tag(texts: ["light on"]), false),
    EventCase("{text: '*'}", tag(texts: []), false),
    EventCase("{reader: '*ACR122U*'}", tag(texts: ["x"]), true),
    EventCase("{reader: '*ACR122U*'}", tag(), false),
    EventCase("{reader: '*ACR1252U*'}", tag(), false),
    EventCase("{reader: '*acr122u*'}", tag(), false),
    EventCase("{reader: '*acr122u*'}", tag(), false),
    EventCase("{tech: [type4, type2]}", tag(tech: "type2"), true),
    EventCase("{tech: [type4]}", tag(tech: "type2"), false),
    EventCase("{any: true}", tag(), true),
    EventCase("{any: true, tech: [type4]}", tag(tech: "type2"), false),
    // Several conditions: all must hold.
    EventCase("{domains: [e.com], uid: [0102]}", tag(uri: "https://e.com/", uid: "0102"), true),
    EventCase("{domains: [e.com], uid: [0102]}", tag(uri: "https://e.com/", uid: "0103"), false),
    EventCase("{domains: [e.com], uid: [0102]}", tag(uri: nil, uid: "0102"), false),
    EventCase("{schemes: [tel], reader: '*ACR*'}", tag(uri: "tel:+49301234"), true),
]

@Test(arguments: eventCases)
func eventConditions(fact: EventCase) throws {
    let result = RuleFixture.load(RuleFixture.file(match: fact.match))
    let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
    #expect(ruleSet.match(fact.event).map(\.rule.name) == (fact.expected ? ["r"] : []))
}

@Test func caseSensitiveFalseForTextAndReaderViaRule() throws {
    let yaml = """
        version: 1
        rules:
          - name: r
            caseSensitive: false
            match: {reader: '*acr122u*', text: 'LIGHT *'}
            open: x
        """
    let ruleSet = try #require(RuleFixture.load(yaml).ruleSet)
    #expect(ruleSet.match(tag(texts: ["light on"])).count == 1)
}

@Test func defaultsAndRuleOverrideCaseSensitivity() throws {
    let yaml = """
        version: 1
        defaults: {caseSensitive: false}
        rules:
          - name: strict
            caseSensitive: true
            match: {domains: [e.com], components: [{'/': '/A'}]}
            open: x
          - name: folded
            match: {domains: [e.com], components: [{'/': '/B'}]}
            open: x
          - name: object-wins
            match: {domains: [e.com], components: [{'/': '/C', caseSensitive: true}]}
            open: x
        """
    let ruleSet = try #require(RuleFixture.load(yaml).ruleSet)
    #expect(ruleSet.match(tag(uri: "https://e.com/a")).isEmpty)
    #expect(ruleSet.match(tag(uri: "https://e.com/b")).map(\.rule.name) == ["folded"])
    #expect(ruleSet.match(tag(uri: "https://e.com/c")).isEmpty)
    #expect(ruleSet.match(tag(uri: "https://e.com/C")).map(\.rule.name) == ["object-wins"])
}

@Test func firstMatchWinsAndContinueFansOut() throws {
    let yaml = """
        version: 1
        rules:
          - name: log
            continue: true
            match: {any: true}
            webhook: {url: "https://log.example/"}
          - name: door
            match: {uid: [0102]}
            run: [/bin/true]
          - name: also-door
            match: {uid: [0102]}
            run: [/bin/false]
          - name: web
            match: {domains: [e.com]}
            open: "{uri}"
        """
    let ruleSet = try #require(RuleFixture.load(yaml).ruleSet)
    #expect(ruleSet.match(tag(uri: "https://e.com/", uid: "0102")).map(\.rule.name) == ["log", "door"])
    #expect(ruleSet.match(tag(uri: "https://e.com/", uid: "0103")).map(\.rule.name) == ["log", "web"])
    #expect(ruleSet.match(tag(uid: "0104")).map(\.rule.name) == ["log"])
}

@Test func tagWithoutURIOnlyMatchesURIFreeRules() throws {
    let yaml = """
        version: 1
        rules:
          - name: web
            match: {domains: ['*.e.com'], schemes: [https]}
            open: x
          - name: blank
            match: {tech: [type2]}
            open: x
        """
    let ruleSet = try #require(RuleFixture.load(yaml).ruleSet)
    #expect(ruleSet.match(tag(uri: nil)).map(\.rule.name) == ["blank"])
    #expect(ruleSet.match(tag(uri: "https://a.e.com/")).map(\.rule.name) == ["web"])
}

@Test func blankTagsAreOnlyTakenByUIDTechOrAnyRules() throws {
    let yaml = """
        version: 1
        rules:
          - {name: door-log, continue: true, match: {reader: '*Door*'}, open: x}
          - {name: by-tech, continue: true, match: {tech: [type2], reader: '*Door*'}, open: x}
          - {name: by-uid, continue: true, match: {uid: ['0102']}, open: x}
          - {name: every, match: {any: true}, open: x}
        """
    let ruleSet = try RuleFixture.load(yaml).get()
    let blank = TagEvent(uid: "0102", reader: "Front Door", tech: "type2")
    #expect(ruleSet.match(blank).map(\.rule.name) == ["by-tech", "by-uid", "every"])
    #expect(
        ruleSet.explain(blank).first?.reason
            == "the tag is blank (no NDEF records): only uid, tags, tech or any rules take blank tags")
    let written = TagEvent(uid: "0102", reader: "Front Door", tech: "type2", texts: ["hi"])
    #expect(ruleSet.match(written).map(\.rule.name) == ["door-log", "by-tech", "by-uid", "every"])
}
