/// The parts of one URI as component patterns see them, computed on demand for each comparison mode and kept for
/// the rest of the match (most rules use the default mode, which needs no copy at all).
public struct MatchSubject {
    /// A part of the URI a pattern can look at.
    public enum Part: Int, Sendable {
        case path, query, fragment
    }

    /// How a subject is prepared: as written or percent-decoded; as is or case-folded.
    public struct Mode: Hashable, Sendable, CustomStringConvertible {
        /// Compare against the URI as written (`true`) or percent-decoded.
        public var percentEncoded: Bool
        /// Compare as is (`true`) or case-folded.
        public var caseSensitive: Bool

        /// Creates a mode.
        /// - Parameters:
        ///   - percentEncoded: compare against the URI as written.
        ///   - caseSensitive: compare without folding case.
        public init(percentEncoded: Bool, caseSensitive: Bool) {
            self.percentEncoded = percentEncoded
            self.caseSensitive = caseSensitive
        }

        public var description: String { "percentEncoded: \(percentEncoded), caseSensitive: \(caseSensitive)" }

        var isVerbatim: Bool { percentEncoded && caseSensitive }
        var index: Int { (percentEncoded ? 0 : 1) + (caseSensitive ? 0 : 2) }
    }

    /// One query item, as ranges into the URI bytes.
    struct QueryItem {
        var name: Range<Int>
        var value: Range<Int>
    }

    /// The URI being matched.
    public let uri: ParsedURI
    private var prepared: [Int: [UInt8]] = [:]
    private var items: [QueryItem]?
    private static let slash: [UInt8] = [UInt8(ascii: "/")]

    /// Prepares `uri` for matching.
    /// - Parameter uri: the parsed URI.
    public init(uri: ParsedURI) {
        self.uri = uri
    }

    private func range(_ part: Part) -> Range<Int>? {
        switch part {
        case .path: uri.path
        case .query: uri.query
        case .fragment: uri.fragment
        }
    }

    /// Whether `pattern` matches `part` prepared in `mode` (a path compared as written, without Apple's slash
    /// rules: ``matches(_:_:)-(PathPattern,_)`` applies them).
    public mutating func matches(_ pattern: Pattern, _ part: Part, _ mode: Mode) -> Bool {
        if pattern.isCatchAll { return true }
        if part == .path, (uri.path).isEmpty { return pattern.matches(Self.slash) }
        return withPreparedBytes(part, mode) { pattern.matches($0) }
    }

    /// Runs `body` with `part` prepared in `mode`: the URI's own bytes when verbatim, else a copy made once and
    /// kept for the rest of the match.
    mutating func withPreparedBytes<R>(_ part: Part, _ mode: Mode, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let range = range(part) ?? 0..<0
        if mode.isVerbatim {
            return uri.withBytes { body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
        let key = part.rawValue * 4 + mode.index
        if let cached = prepared[key] { return cached.withUnsafeBufferPointer(body) }
        let bytes = uri.withBytes { Self.prepare($0[range], mode) }
        prepared[key] = bytes
        return bytes.withUnsafeBufferPointer(body)
    }

    /// Whether every named query item matches its pattern (AASA: absent = empty, every repeat must match).
    public mutating func matchesQueryItems(_ conditions: [QueryItemCondition], _ mode: Mode) -> Bool {
        let items = queryItems()
        return uri.withBytes { bytes in
            for condition in conditions {
                var seen = false
                for item in items {
                    let name = bytes[item.name]
                    let sameName =
                        mode.isVerbatim
                        ? name.elementsEqual(condition.name) : Self.prepare(name, mode) == condition.name
                    guard sameName else { continue }
                    seen = true
                    let value = bytes[item.value]
                    let matched =
                        mode.isVerbatim
                        ? condition.pattern.matches(UnsafeBufferPointer(rebasing: value))
                        : condition.pattern.matches(Self.prepare(value, mode))
                    if !matched { return false }
                }
                if !seen, !condition.pattern.matches([]) { return false }
            }
            return true
        }
    }

    private mutating func queryItems() -> [QueryItem] {
        if let items { return items }
        var result: [QueryItem] = []
        if let query = uri.query {
            uri.withBytes { bytes in
                var start = query.lowerBound
                while start <= query.upperBound {
                    let end = bytes[start..<query.upperBound].firstIndex(of: UInt8(ascii: "&")) ?? query.upperBound
                    if end > start {
                        let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "="))
                        result.append(
                            QueryItem(name: start..<(equals ?? end), value: equals.map { ($0 + 1)..<end } ?? end..<end))
                    }
                    start = end + 1
                }
            }
        }
        items = result
        return result
    }

    static func prepare<C: Collection<UInt8>>(_ bytes: C, _ mode: Mode) -> [UInt8] {
        var result = mode.percentEncoded ? Array(bytes) : URIText.percentDecoded(bytes)
        if !mode.caseSensitive { result = Array(String(decoding: result, as: UTF8.self).lowercased().utf8) }
        return result
    }
}
