import AASAPatterns
import Testing

/// One path pattern, one URI, and what Apple's matcher answers.
struct SlashCase: Sendable, CustomStringConvertible {
    var pattern: String
    var uri: String
    var matches: Bool
    /// Where the answer comes from: `swcutil` runs recorded in the conformance corpus of the blazingly-aasa
    /// project (conformance/oracle/swcutil-probes.tsv, swcutil-corpus.txt; macOS 27.0, 2026-09-02), named by
    /// their case id, or "derived" for a consequence of those rules no one has run against Apple.
    var source: String

    var description: String { "\(pattern) ~ \(uri) (\(source))" }
}

/// Apple's slash rules for path patterns (docs/rules.md, "Slashes in paths").
let slashCases: [SlashCase] = [
    SlashCase(pattern: "/buy/*", uri: "https://e.com/buy", matches: true, source: "buy-star-vs-no-slash"),
    SlashCase(pattern: "/buy/*", uri: "https://e.com/buy/", matches: true, source: "buy-star-vs-slash"),
    SlashCase(pattern: "/buy/*", uri: "https://e.com/buy/42", matches: true, source: "buy-star-vs-child"),
    SlashCase(pattern: "/buy/*", uri: "https://e.com/buyer", matches: false, source: "buy-star-vs-sibling"),
    SlashCase(pattern: "/buy/*", uri: "https://e.com/bu", matches: false, source: "buy-star-vs-prefix"),
    SlashCase(pattern: "/a/b/*", uri: "https://e.com/a/b", matches: true, source: "deep-star-vs-no-slash"),
    SlashCase(pattern: "/buy*", uri: "https://e.com/buy", matches: true, source: "star-no-slash-vs-plain"),
    SlashCase(pattern: "/a/*/c", uri: "https://e.com/a/c", matches: false, source: "mid-star-vs-no-slash"),
    SlashCase(pattern: "/buy", uri: "https://e.com/buy", matches: true, source: "exact-no-star"),
    SlashCase(pattern: "/buy", uri: "https://e.com/buy/", matches: true, source: "exact-vs-trailing-slash"),
    SlashCase(pattern: "abc", uri: "https://e.com/abc", matches: true, source: "bare-abc-vs-slash-abc"),
    SlashCase(pattern: "buy/*", uri: "https://e.com/buy/42", matches: true, source: "bare-buy-star"),
    SlashCase(pattern: "abc", uri: "https://e.com/abcd", matches: false, source: "bare-abc-vs-abcd"),
    SlashCase(pattern: "abc", uri: "https://e.com/xabc", matches: false, source: "bare-abc-vs-xabc"),
    SlashCase(pattern: "abc/*", uri: "https://e.com/abc", matches: true, source: "bare-abc-star"),
    SlashCase(pattern: "*abc", uri: "https://e.com/xabc", matches: true, source: "bare-star-abc"),
    SlashCase(pattern: "//abc", uri: "https://e.com/abc", matches: true, source: "double-slash-pattern"),
    SlashCase(pattern: "a/b", uri: "https://e.com/a/b", matches: true, source: "bare-deep"),
    SlashCase(pattern: "/buy/", uri: "https://e.com/buy", matches: true, source: "pattern-trailing-slash"),
    SlashCase(pattern: "/a/b/", uri: "https://e.com/a/b", matches: true, source: "deep-pattern-trailing"),
    SlashCase(pattern: "/buy/*", uri: "https://e.com/buy//", matches: true, source: "double-trailing-url"),
    SlashCase(pattern: "/buy/", uri: "https://e.com/buy//", matches: true, source: "star-vs-double-slash"),
    SlashCase(pattern: "/", uri: "https://e.com/", matches: true, source: "root-pattern"),
    SlashCase(pattern: "/", uri: "https://e.com", matches: true, source: "root-pattern-vs-empty"),
    SlashCase(
        pattern: "/buy/*", uri: "https://e.com/buy/42/x", matches: true, source: "wildcards/star-crosses-slashes"),
    SlashCase(pattern: "/id/????", uri: "https://e.com/id/4815", matches: true, source: "wildcards/question-marks"),
    SlashCase(pattern: "/id/????", uri: "https://e.com/id/481", matches: false, source: "wildcards/question-marks"),
    SlashCase(pattern: "/a/?*", uri: "https://e.com/a/", matches: false, source: "wildcards/question-star"),
    SlashCase(pattern: "/a/?*", uri: "https://e.com/a/b", matches: true, source: "wildcards/question-star"),
    SlashCase(pattern: "/a/b", uri: "https://e.com/a%2Fb", matches: false, source: "encoded-slash-default"),
    SlashCase(
        pattern: "/search/", uri: "https://e.com/search/?q=foo#bar", matches: true, source: "universal-links-test"),
    SlashCase(pattern: "/id/????", uri: "https://e.com/id/481/", matches: false, source: "derived"),
    SlashCase(pattern: "/id/???/", uri: "https://e.com/id/481", matches: true, source: "derived"),
    SlashCase(pattern: "/*", uri: "https://e.com", matches: true, source: "derived"),
]

@Test(arguments: slashCases)
func slashParity(_ fact: SlashCase) throws {
    let compiler = PatternCompiler(variables: [:], foldsCase: false, percentEncoded: true)
    let pattern = try compiler.compilePath(fact.pattern)
    var subject = MatchSubject(uri: try #require(ParsedURI(fact.uri)))
    #expect(subject.matches(pattern, MatchSubject.Mode(percentEncoded: true, caseSensitive: true)) == fact.matches)
}

/// With `percentEncoded: false` the path is decoded before the slash rules: `%2F` is then a slash.
@Test func anEncodedSlashIsASlashOnceDecoded() throws {
    let compiler = PatternCompiler(variables: [:], foldsCase: false, percentEncoded: false)
    var subject = MatchSubject(uri: try #require(ParsedURI("https://e.com/a%2Fb")))
    #expect(
        subject.matches(
            try compiler.compilePath("/a/b"), MatchSubject.Mode(percentEncoded: false, caseSensitive: true)))
}

/// A path pattern with substitution variables, one URI, and what Apple's matcher answers (the sources as for
/// ``SlashCase``; "Apple" for the example of Apple's own substitutionVariables documentation).
struct VariableCase: Sendable, CustomStringConvertible {
    var variables: [String: [String]]
    var pattern: String
    var uri: String
    var matches: Bool
    var source: String

    var description: String { "\(variables) \(pattern) ~ \(uri) (\(source))" }
}

/// Values of a substitution variable may hold `*` and `?`, which are wildcards there too (docs/rules.md,
/// "Substitution variables").
let variableCases: [VariableCase] = {
    let food = ["food": ["burrito", "pizza", "sushi", "samosa"]]
    let burger = ["food": ["burger*", "pizza"]]
    return [
        VariableCase(
            variables: food, pattern: "/$(lang)_$(region)/$(food)/", uri: "https://e.com/en_US/pizza/", matches: true,
            source: "substitution/apple-reference-example"),
        VariableCase(
            variables: food, pattern: "/$(lang)_$(region)/$(food)/", uri: "https://e.com/en_US/tacos/",
            matches: false, source: "substitution/unlisted-value-fails"),
        VariableCase(
            variables: ["kind": ["a*z"]], pattern: "/$(kind)/x", uri: "https://e.com/abcz/x", matches: true,
            source: "substitution/values-may-contain-wildcards"),
        VariableCase(
            variables: ["kind": ["a*z"]], pattern: "/$(kind)/x", uri: "https://e.com/abcy/x", matches: false,
            source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/pizza/", matches: true, source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/pizza", matches: true, source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/burger/", matches: true, source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/burgerking", matches: true, source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/burger/extra/", matches: true,
            source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/Burger/", matches: false, source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/pizzas/", matches: false, source: "derived"),
        VariableCase(
            variables: burger, pattern: "/$(food)/", uri: "https://e.com/x/burger/", matches: false, source: "derived"),
        VariableCase(
            variables: ["v": ["b?g"]], pattern: "/$(v)", uri: "https://e.com/bag", matches: true, source: "derived"),
        VariableCase(
            variables: ["v": ["b?g"]], pattern: "/$(v)", uri: "https://e.com/bg", matches: false, source: "derived"),
        // Inside a value, `$(` is text: values cannot refer to other variables.
        VariableCase(
            variables: ["v": ["$(x)*"]], pattern: "/$(v)", uri: "https://e.com/$(x)y", matches: true, source: "derived"),
    ]
}()

@Test(arguments: variableCases)
func variableParity(_ fact: VariableCase) throws {
    let compiler = PatternCompiler(variables: fact.variables, foldsCase: false, percentEncoded: true)
    let pattern = try compiler.compilePath(fact.pattern)
    var subject = MatchSubject(uri: try #require(ParsedURI(fact.uri)))
    #expect(subject.matches(pattern, MatchSubject.Mode(percentEncoded: true, caseSensitive: true)) == fact.matches)
}
