/// A pattern for a URI's path (a component's `/`, a legacy `paths` entry), read with Apple's slash rules
/// (docs/rules.md, "Slashes in paths"):
/// - the pattern's leading `/` is optional, and a leading run of slashes counts as one: `abc`, `/abc` and
///   `//abc` all match `/abc`;
/// - trailing slashes decide nothing, on either side: `/buy` matches `/buy/`, `/buy/` matches `/buy`;
/// - a pattern ending in `/*` also matches the path it ends below: `/buy/*` matches `/buy`;
/// - `*` still crosses slashes, and a `*` between two slashes still needs both (`/a/*/c` never matches `/a/c`).
/// These are the answers of Apple's own matcher (`swcutil match`) to the cases in
/// Tests/TagRulesTests/SlashParityTests.swift.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public var source: String { candidates[0].source }
    /// The pattern with its slashes normalized, then the parent form of a pattern ending in `/*`.
    let candidates: [Pattern]
    /// Whether the pattern starts with `/`; one that does not is also tried against the path without its `/`.
    let isAnchored: Bool

    /// Normalizes a compiled pattern's slashes.
    /// - Parameter pattern: the pattern as compiled from the text.
    init(_ written: Pattern) {
        let slash = Pattern.Element.byte(UInt8(ascii: "/"))
        var elements = written.elements
        isAnchored = elements.first == slash
        if isAnchored {
            while elements.count > 1 && elements[1] == slash { elements.remove(at: 1) }
        }
        func trimmed(_ elements: [Pattern.Element]) -> [Pattern.Element] {
            var elements = elements
            while elements.count > 1 && elements.last == slash { elements.removeLast() }
            return elements
        }
        elements = trimmed(elements)
        func pattern(_ elements: [Pattern.Element]) -> Pattern {
            Pattern(source: written.source, isCaseFolded: written.isCaseFolded, elements: elements)
        }
        var candidates = [pattern(elements)]
        if elements.count > 2, elements.suffix(2) == [slash, .star] {
            candidates.append(pattern(trimmed(Array(elements.dropLast(2)))))
        }
        self.candidates = candidates
    }

    /// The pattern as written.
    public var description: String { source }

    /// Whether the pattern is `*` alone, which matches every path.
    public var isCatchAll: Bool { candidates[0].isCatchAll }

    /// Whether the pattern matches a path already normalized by ``normalized(_:)``.
    /// - Parameter path: the path bytes (case-folded by the caller when the pattern was compiled case-folded).
    /// - Returns: whether it matches.
    func matches(normalized path: UnsafeBufferPointer<UInt8>) -> Bool {
        for candidate in candidates {
            if candidate.matches(path) { return true }
            if !isAnchored, let first = path.first, first == UInt8(ascii: "/"),
                candidate.matches(UnsafeBufferPointer(rebasing: path.dropFirst()))
            {
                return true
            }
        }
        return false
    }

    /// The part of a path the patterns compare with: a leading run of slashes counts as one, trailing slashes
    /// are dropped, and an empty path is `/` (returned as nil: the caller uses ``root``).
    /// - Parameter path: the path bytes.
    /// - Returns: the range to compare, or nil for the root.
    static func normalized(_ path: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let slash = UInt8(ascii: "/")
        var start = 0
        var end = path.count
        while end > 0 && path[end - 1] == slash { end -= 1 }
        guard end > 0 else { return nil }
        while start + 1 < end && path[start] == slash && path[start + 1] == slash { start += 1 }
        return start..<end
    }

    /// `/`, what an empty or all-slash path compares as.
    static let root: [UInt8] = [UInt8(ascii: "/")]
}

extension PatternCompiler {
    /// Compiles a path pattern (a component's `/`, a legacy `paths` entry) with Apple's slash rules.
    /// - Parameter text: the pattern as written.
    /// - Returns: the path pattern.
    /// - Throws: ``Failure`` as ``compile(_:)`` does.
    public func compilePath(_ text: String) throws(Failure) -> PathPattern {
        PathPattern(try compile(text))
    }
}

extension MatchSubject {
    /// Whether `pattern` matches the URI's path prepared in `mode`, with Apple's slash rules.
    /// - Parameters:
    ///   - pattern: the path pattern.
    ///   - mode: how the path is prepared.
    /// - Returns: whether it matches.
    public mutating func matches(_ pattern: PathPattern, _ mode: Mode) -> Bool {
        if pattern.isCatchAll { return true }
        return withPreparedBytes(.path, mode) { path in
            guard let range = PathPattern.normalized(path) else {
                return PathPattern.root.withUnsafeBufferPointer { pattern.matches(normalized: $0) }
            }
            return pattern.matches(normalized: UnsafeBufferPointer(rebasing: path[range]))
        }
    }
}
