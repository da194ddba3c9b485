import AASAPatterns

/// A rule's live association file: `aasa: { domain:, appID: }` (docs/rules.md, "Live association files"). The
/// router fetches `https://DOMAIN/.well-known/apple-app-site-association` and swaps its components into the rule
/// with ``RuleSet/applying(_:)``; until then the rule matches nothing.
public struct AssociatedDomain: Sendable, Hashable {
    /// The domain whose file is fetched: lower-case ASCII (punycode for IDN), no wildcard, no port.
    public var domain: String
    /// The app whose `details` entries are used; every entry when nil.
    public var appID: String?
    /// The rule that uses the file.
    public var rule: String
    /// Where `aasa` is written.
    public var location: SourceLocation
    /// How the rule compares (its `caseSensitive` and `percentEncoded`), for the file's components.
    var mode: MatchSubject.Mode
    /// The substitution variables of the rules file, which the file's own extend.
    var variables: [String: [String]]
}
