/// One named query item of a component's `?` mapping and its pattern.
public struct QueryItemCondition: Sendable, Hashable {
    /// The item name, prepared like the subject (encoded or decoded, folded or not).
    public var name: [UInt8]
    /// The pattern every value of that item must match.
    public var pattern: Pattern

    /// Creates a condition.
    /// - Parameters:
    ///   - name: the item name, prepared like the subject (``PatternCompiler/normalize(_:)``).
    ///   - pattern: the pattern every value of that item must match.
    public init(name: [UInt8], pattern: Pattern) {
        self.name = name
        self.pattern = pattern
    }
}

/// The matching part of one AASA component object: patterns for the path, the query (whole, or by item) and the
/// fragment, compared in one ``MatchSubject/Mode`` (docs/rules.md, "Components").
public struct ComponentPattern: Sendable, Hashable {
    /// What the `?` key holds.
    public enum Query: Sendable, Hashable {
        /// A pattern for the whole query string.
        case whole(Pattern)
        /// Patterns for named query items.
        case items([QueryItemCondition])
    }

    /// The `/` pattern; nil means `*`.
    public var path: PathPattern?
    /// The `?` condition; nil means `*`.
    public var query: Query?
    /// The `#` pattern; nil means `*`.
    public var fragment: Pattern?
    /// How subjects are prepared for this object.
    public var mode: MatchSubject.Mode

    /// Creates a component pattern.
    /// - Parameters:
    ///   - path: the `/` pattern (``PatternCompiler/compilePath(_:)``); nil means `*`.
    ///   - query: the `?` condition; nil means `*`.
    ///   - fragment: the `#` pattern; nil means `*`.
    ///   - mode: how subjects are prepared.
    public init(path: PathPattern?, query: Query?, fragment: Pattern?, mode: MatchSubject.Mode) {
        self.path = path
        self.query = query
        self.fragment = fragment
        self.mode = mode
    }

    /// Whether the URI matches every part of the object.
    /// - Parameter subject: the URI, prepared once for all the objects it is compared with.
    /// - Returns: whether it matches.
    public func matches(_ subject: inout MatchSubject) -> Bool {
        if let path, !subject.matches(path, mode) { return false }
        switch query {
        case nil: break
        case .whole(let pattern): if !subject.matches(pattern, .query, mode) { return false }
        case .items(let conditions): if !subject.matchesQueryItems(conditions, mode) { return false }
        }
        if let fragment, !subject.matches(fragment, .fragment, mode) { return false }
        return true
    }
}
