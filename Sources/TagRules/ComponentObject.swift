import AASAPatterns

/// One object of an AASA `components` list (docs/rules.md, "Components"): its patterns, whether it excludes, and
/// where it is written.
public struct ComponentObject: Sendable, Hashable {
    /// The patterns and how they compare.
    var pattern: ComponentPattern
    /// Whether a match excludes the URI.
    public var isExcluding: Bool
    /// Where the object is written.
    public var location: SourceLocation
    /// The object in one line of JSON-like text, for `explain`.
    public var summary: String

    /// Whether this object matches the URI.
    func matches(_ subject: inout MatchSubject) -> Bool {
        pattern.matches(&subject)
    }
}
