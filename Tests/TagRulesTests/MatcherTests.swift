import TagRules
import Testing

/// One fact: a rule's `match` (flow YAML), a URI, whether the rule matches.
struct MatchCase: CustomStringConvertible, Sendable {
    var match: String
    var uri: String
    var expected: Bool
    var description: String { "\(match) ~ \(uri) -> \(expected)" }

    init(_ match: String, _ uri: String, _ expected: Bool) {
        self.match = match
        self.uri = uri
        self.expected = expected
    }
}

let domainCases: [MatchCase] = [
    MatchCase("{domains: [example.com]}", "https://example.com/", true),
    MatchCase("{domains: [example.com]}", "http://example.com/a", true),
    MatchCase("{domains: [example.com]}", "https://EXAMPLE.COM/a", true),
    MatchCase("{domains: [Example.COM]}", "https://example.com", true),
    MatchCase("{domains: [example.com]}", "https://www.example.com/", false),
    MatchCase("{domains: [example.com]}", "https://example.com.evil.net/", false),
    MatchCase("{domains: [example.com]}", "https://notexample.com/", false),
    // The trap: *.example.com is subdomains only, never the apex.
    MatchCase("{domains: ['*.example.com']}", "https://example.com/", false),
    MatchCase("{domains: ['*.example.com']}", "https://www.example.com/", true),
    MatchCase("{domains: ['*.example.com']}", "https://a.b.c.example.com/x", true),
    MatchCase("{domains: ['*.example.com']}", "https://badexample.com/", false),
    MatchCase("{domains: ['*.example.com', example.com]}", "https://example.com/", true),
    // Without schemes, only http and https.
    MatchCase("{domains: [example.com]}", "ftp://example.com/", false),
    MatchCase("{domains: [example.com]}", "myapp://example.com/", false),
    MatchCase("{domains: [open], schemes: [myapp]}", "myapp://open/x", true),
    MatchCase("{domains: [open], schemes: [myapp]}", "https://open/x", false),
    MatchCase("{domains: [open], schemes: [myapp]}", "myapp://close/x", false),
    // IDN: Unicode and punycode are the same entry, either way round.
    MatchCase("{domains: [bücher.example]}", "https://xn--bcher-kva.example/", true),
    MatchCase("{domains: [xn--bcher-kva.example]}", "https://bücher.example/", true),
    MatchCase("{domains: [BÜCHER.example]}", "https://Bücher.Example/x", true),
    MatchCase("{domains: ['*.bücher.example']}", "https://www.b%C3%BCcher.example/", true),
    // Ports.
    MatchCase("{domains: ['example.com:8443']}", "https://example.com:8443/", true),
    MatchCase("{domains: ['example.com:8443']}", "https://example.com/", false),
    MatchCase("{domains: ['example.com:8443']}", "https://example.com:8444/", false),
    MatchCase("{domains: ['example.com:443']}", "https://example.com/", true),
    MatchCase("{domains: [example.com]}", "https://example.com:9999/", true),
    MatchCase("{domains: ['*.example.com:8080']}", "http://a.example.com:8080/", true),
    // User info is not the host.
    MatchCase("{domains: [example.com]}", "https://example.com@evil.net/", false),
    MatchCase("{domains: [evil.net]}", "https://example.com@evil.net/", true),
    // Invalid URIs match no URI condition.
    MatchCase("{domains: [example.com]}", "https://exa mple.com/", false),
    MatchCase("{domains: [example.com]}", "https://example.com/a b", false),
    MatchCase("{domains: [example.com]}", "https://example.com:99999/", false),
]

let schemeCases: [MatchCase] = [
    MatchCase("{schemes: [spotify]}", "spotify:track:6rqhFgbbKwnb9MLmUQDhG6", true),
    MatchCase("{schemes: [spotify]}", "SPOTIFY:track:1", true),
    MatchCase("{schemes: [Spotify]}", "spotify:track:1", true),
    MatchCase("{schemes: [spotify]}", "https://open.spotify.com/track/1", false),
    MatchCase("{schemes: [tel, sms]}", "tel:+4930123", true),
    MatchCase("{schemes: [https]}", "https://anything.example/", true),
    MatchCase("{schemes: [tel]}", "tel", false),
]

let componentCases: [MatchCase] = [
    MatchCase("{domains: [e.com], components: [{'/': '/a/*'}]}", "https://e.com/a/b/c", true),
    // Apple's slash rules (SlashParityTests): `/a/*` also matches `/a`, and a trailing slash decides nothing.
    MatchCase("{domains: [e.com], components: [{'/': '/a/*'}]}", "https://e.com/a", true),
    MatchCase("{domains: [e.com], components: [{'/': '/a/*'}]}", "https://e.com/ab", false),
    MatchCase("{domains: [e.com], components: [{'/': '/a/*'}]}", "https://e.com/b/a/c", false),
    MatchCase("{domains: [e.com], components: [{'/': '/a'}]}", "https://e.com/a/", true),
    MatchCase("{domains: [e.com], components: [{'/': '/'}]}", "https://e.com", true),
    MatchCase("{domains: [e.com], components: [{'/': '/?'}]}", "https://e.com/x", true),
    MatchCase("{domains: [e.com], components: [{'/': '/?'}]}", "https://e.com/xy", false),
    MatchCase("{domains: [e.com], components: [{'/': '/?*'}]}", "https://e.com/", false),
    MatchCase("{domains: [e.com], components: [{'/': '/?*'}]}", "https://e.com/xyz", true),
    // Backtracking `*`: /*.pdf matches /a.b.pdf (unlike Android's pathPattern).
    MatchCase("{domains: [e.com], components: [{'/': '/*.pdf'}]}", "https://e.com/a.b.pdf", true),
    MatchCase("{domains: [e.com], components: [{'/': '/*.pdf'}]}", "https://e.com/a.pdf.txt", false),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/*a*a*a*a*b'}]}",
        "https://e.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),
    // Query mapping: absent = empty, so `*` matches a URI without `ref`, `?*` requires it.
    MatchCase("{domains: [e.com], components: [{'?': {ref: '*'}}]}", "https://e.com/", true),
    MatchCase("{domains: [e.com], components: [{'?': {ref: '?*'}}]}", "https://e.com/", false),
    MatchCase("{domains: [e.com], components: [{'?': {ref: '?*'}}]}", "https://e.com/?ref=x", true),
    MatchCase("{domains: [e.com], components: [{'?': {ref: '?*'}}]}", "https://e.com/?ref", false),
    MatchCase("{domains: [e.com], components: [{'?': {ref: '?*'}}]}", "https://e.com/?ref=", false),
    MatchCase("{domains: [e.com], components: [{'?': {a: '1', b: '2'}}]}", "https://e.com/?b=2&x=9&a=1", true),
    // Repeated query items: every instance must match.
    MatchCase("{domains: [e.com], components: [{'?': {id: '$(digit)'}}]}", "https://e.com/?id=1&id=2", true),
    MatchCase("{domains: [e.com], components: [{'?': {id: '$(digit)'}}]}", "https://e.com/?id=1&id=x", false),
    // Whole-query pattern.
    MatchCase("{domains: [e.com], components: [{'?': 'a=*'}]}", "https://e.com/?a=1&b=2", true),
    MatchCase("{domains: [e.com], components: [{'?': 'a=*'}]}", "https://e.com/?b=2&a=1", false),
    // Fragment.
    MatchCase("{domains: [e.com], components: [{'#': 'top'}]}", "https://e.com/#top", true),
    MatchCase("{domains: [e.com], components: [{'#': 'top'}]}", "https://e.com/", false),
    MatchCase("{domains: [e.com], components: [{'#': '*'}]}", "https://e.com/", true),
    // exclude: the first matching object decides; an exclude after a catch-all never excludes.
    MatchCase(
        "{domains: [e.com], components: [{'/': '/a/secret/*', exclude: true}, {'/': '/a/*'}]}",
        "https://e.com/a/secret/x", false),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/a/secret/*', exclude: true}, {'/': '/a/*'}]}", "https://e.com/a/open",
        true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '*'}, {'/': '/a/secret/*', exclude: true}]}", "https://e.com/a/secret/x",
        true),
    MatchCase("{domains: [e.com], components: [{'/': '/x', exclude: true}]}", "https://e.com/y", false),
    // Case sensitivity.
    MatchCase("{domains: [e.com], components: [{'/': '/Shop/*'}]}", "https://e.com/shop/1", false),
    MatchCase("{domains: [e.com], components: [{'/': '/Shop/*', caseSensitive: false}]}", "https://e.com/sHOP/1", true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/ÉTÉ', caseSensitive: false, percentEncoded: false}]}",
        "https://e.com/%C3%A9t%C3%A9", true),
    // Percent-encoded vs decoded subjects with Unicode.
    MatchCase("{domains: [e.com], components: [{'/': '/caf%C3%A9/*'}]}", "https://e.com/caf%C3%A9/1", true),
    MatchCase("{domains: [e.com], components: [{'/': '/caf%c3%a9/*'}]}", "https://e.com/caf%C3%A9/1", true),
    MatchCase("{domains: [e.com], components: [{'/': '/café/*'}]}", "https://e.com/café/1", true),
    MatchCase("{domains: [e.com], components: [{'/': '/café/*'}]}", "https://e.com/caf%C3%A9/1", true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/café/*', percentEncoded: false}]}", "https://e.com/caf%C3%A9/1", true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/caf?/*', percentEncoded: false}]}", "https://e.com/caf%C3%A9/1", true),
    MatchCase("{domains: [e.com], components: [{'/': '/caf?/*'}]}", "https://e.com/caf%C3%A9/1", false),
    MatchCase("{domains: [e.com], components: [{'/': '/a b', percentEncoded: false}]}", "https://e.com/a%20b", true),
    MatchCase("{domains: [e.com], components: [{'/': '/a b'}]}", "https://e.com/a%20b", false),
    MatchCase(
        "{domains: [e.com], components: [{'?': {q: 'ü'}, percentEncoded: false}]}", "https://e.com/?q=%C3%BC", true),
    // Variables and classes.
    MatchCase("{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*'}]}", "https://e.com/en_US/x", true),
    MatchCase("{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*'}]}", "https://e.com/xx_US/x", false),
    MatchCase("{domains: [e.com], components: [{'/': '/$(lang)/*'}]}", "https://e.com/de/x", true),
    MatchCase("{domains: [e.com], components: [{'/': '/$(lang)/*'}]}", "https://e.com/qq/x", false),
    // $(lang) and $(region) under each combination of caseSensitive and percentEncoded (their alternatives are
    // computed once per combination and shared by every pattern).
    MatchCase("{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*'}]}", "https://e.com/EN_us/x", false),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*', caseSensitive: false}]}",
        "https://e.com/EN_us/x", true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*', percentEncoded: false}]}",
        "https://e.com/de_AT/x", true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*', percentEncoded: false}]}",
        "https://e.com/De_AT/x", false),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*', caseSensitive: false, percentEncoded: false}]}",
        "https://e.com/De_aT/x", true),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/$(lang)_$(region)/*', caseSensitive: false, percentEncoded: false}]}",
        "https://e.com/De_qQ/x", false),
    MatchCase(
        "{domains: [e.com], components: [{'/': '/$(region)/$(region)', caseSensitive: false}]}", "https://e.com/fr/Ch",
        true),
    MatchCase("{domains: [e.com], components: [{'/': '/p/$(digit)$(digit)'}]}", "https://e.com/p/42", true),
    MatchCase("{domains: [e.com], components: [{'/': '/p/$(digit)$(digit)'}]}", "https://e.com/p/4a", false),
    MatchCase("{domains: [e.com], components: [{'/': '/$(upper)*'}]}", "https://e.com/Abc", true),
    MatchCase("{domains: [e.com], components: [{'/': '/$(upper)*'}]}", "https://e.com/abc", false),
    MatchCase("{domains: [e.com], components: [{'/': '/$(xdigit)'}]}", "https://e.com/F", true),
    MatchCase("{domains: [e.com], components: [{'/': '/$(alnum)$(alpha)$(lower)'}]}", "https://e.com/1ab", true),
    // Escapes (an extension: Apple has none).
    MatchCase(#"{domains: [e.com], components: [{'/': '/a\*'}]}"#, "https://e.com/a*", true),
    MatchCase(#"{domains: [e.com], components: [{'/': '/a\*'}]}"#, "https://e.com/ab", false),
    MatchCase(#"{domains: [e.com], components: [{'/': '/\$(digit)'}]}"#, "https://e.com/$(digit)", true),
    MatchCase(#"{domains: [e.com], components: [{'/': '/a\?'}]}"#, "https://e.com/a", false),
    // A wildcard followed by a combining mark is still a wildcard: patterns are read by Unicode scalar.
    MatchCase(
        #"{domains: [e.com], components: [{'/': "/caf?\u0301", percentEncoded: false}]}"#, "https://e.com/cafe%CC%81",
        true),
    MatchCase(
        #"{domains: [e.com], components: [{'/': "/a*\u0301", percentEncoded: false}]}"#, "https://e.com/abc%CC%81", true
    ),
    MatchCase(#"{domains: [e.com], components: [{'/': "/a*\u0301"}]}"#, "https://e.com/abc%CC%81", true),
    MatchCase(#"{domains: [e.com], components: [{'/': "/a?\u0301"}]}"#, "https://e.com/abc%CC%81", false),
    // Legacy paths with NOT.
    MatchCase("{domains: [e.com], paths: ['NOT /a/secret/*', '/a/*']}", "https://e.com/a/secret/1", false),
    MatchCase("{domains: [e.com], paths: ['NOT /a/secret/*', '/a/*']}", "https://e.com/a/1", true),
    MatchCase("{domains: [e.com], paths: ['/a/*']}", "https://e.com/b", false),
]

@Test(arguments: domainCases + schemeCases + componentCases)
func uriMatching(fact: MatchCase) throws {
    let result = RuleFixture.load(RuleFixture.file(match: fact.match))
    let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
    let event = RuleFixture.event(uri: fact.uri)
    #expect(ruleSet.match(event).map(\.rule.name) == (fact.expected ? ["r"] : []))
    #expect(ruleSet.rules[0].matches(event) == fact.expected)
}

@Test(
    arguments: [
        ("{room: [kitchen, hall]}", "https://e.com/door/kitchen", true),
        ("{room: [kitchen, hall]}", "https://e.com/door/garage", false),
        ("{room: [kit, kitchen]}", "https://e.com/door/kitchen", true),
    ] as [(String, String, Bool)])
func substitutionVariables(variables: String, uri: String, expected: Bool) throws {
    let text = RuleFixture.file(
        match: "{domains: [e.com], components: [{'/': '/door/$(room)'}]}",
        variables: "substitutionVariables: \(variables)")
    let ruleSet = try #require(RuleFixture.load(text).ruleSet)
    #expect(ruleSet.match(RuleFixture.event(uri: uri)).isEmpty != expected)
}
