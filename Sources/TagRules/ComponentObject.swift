/// One named query item of a component's `?` mapping and its pattern.
struct QueryItemCondition: Sendable, Hashable {
    /// The item name, prepared like the subject (encoded or decoded, folded or not).
    var name: [UInt8]
    /// The pattern every value of that item must match.
    var pattern: Pattern
}

/// One object of an AASA `components` list (RULES.md, "AASA components").
public struct ComponentObject: Sendable, Hashable {
    /// What the `?` key holds.
    enum Query: Sendable, Hashable {
        /// A pattern for the whole query string.
        case whole(Pattern)
        /// Patterns for named query items.
        case items([QueryItemCondition])
    }

    /// The `/` pattern; nil means `*`.
    var path: Pattern?
    /// The `?` condition; nil means `*`.
    var query: Query?
    /// The `#` pattern; nil means `*`.
    var fragment: Pattern?
    /// Whether a match excludes the URI.
    public var isExcluding: Bool
    /// How subjects are prepared for this object.
    var mode: MatchSubject.Mode
    /// Where the object is written.
    public var location: SourceLocation
    /// The object in one line of JSON-like text, for `explain`.
    public var summary: String

    /// Whether this object matches the URI.
    func matches(_ subject: inout MatchSubject) -> Bool {
        if let path, !subject.matches(path, .path, mode) { return false }
        switch query {
        case nil: break
        case .whole(let pattern): if !subject.matches(pattern, .query, mode) { return false }
        case .items(let conditions): if !subject.matchesQueryItems(conditions, mode) { return false }
        }
        if let fragment, !subject.matches(fragment, .fragment, mode) { return false }
        return true
    }
}
