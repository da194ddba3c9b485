/// A compiled wildcard pattern of the rule language (docs/rules.md, "Patterns"): matched against the whole
/// subject, with `*` (zero or more characters), `?` (exactly one), `?*` (one or more), `$(name)` (one value of a
/// substitution variable or one character of a predefined class) and the escapes `\*` `\?` `\$` `\\`.
public struct Pattern: Sendable, Hashable, CustomStringConvertible {
    /// One step of a compiled pattern.
    enum Element: Sendable, Hashable {
        /// This exact byte.
        case byte(UInt8)
        /// Exactly one character (one Unicode scalar, or one byte of invalid UTF-8).
        case one
        /// Zero or more characters.
        case star
        /// One character of a predefined class.
        case characterClass(CharacterClass)
        /// Any one of these byte strings.
        case alternatives(Alternatives)
        /// Any one of these small patterns (values of a variable that hold `*` or `?`): bytes, `?`, `*` and
        /// classes, never alternatives themselves.
        case patterns([[Element]])
    }

    /// The pattern as written.
    public let source: String
    /// Whether the pattern was compiled for case-folded subjects.
    let isCaseFolded: Bool
    let elements: [Element]
    let hasAlternatives: Bool

    init(source: String, isCaseFolded: Bool, elements: [Element]) {
        self.source = source
        self.isCaseFolded = isCaseFolded
        self.elements = elements
        self.hasAlternatives = elements.contains {
            switch $0 {
            case .alternatives, .patterns: true
            default: false
            }
        }
    }

    /// The pattern as written.
    public var description: String { source }

    /// Whether the pattern is `*` alone, which matches everything.
    public var isCatchAll: Bool { elements == [.star] }

    /// Whether the pattern matches the whole of `subject` (already case-folded when ``isCaseFolded``).
    /// - Parameter subject: the bytes to match.
    /// - Returns: whether it matches.
    public func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
        if isCatchAll { return true }
        guard hasAlternatives else { return matchesLinear(subject) }
        var matcher = BitParallelMatcher(subject)
        return matcher.matches(elements)
    }

    /// The straightforward dynamic programming over (element, offset), cell by cell: what the bit-parallel matcher
    /// computes, kept as its reference for `fuzz-aasa`, which compares the two (docs/RELIABILITY.md).
    /// - Parameter subject: the text to match (case-folded by the caller when ``isCaseFolded``).
    /// - Returns: whether it matches.
    @_spi(Reference) public func referenceMatches(_ subject: [UInt8]) -> Bool {
        subject.withUnsafeBufferPointer { matchesWithTable($0) }
    }

    /// Whether the pattern matches the whole of `subject`.
    /// - Parameter subject: the text to match (case-folded by the caller when ``isCaseFolded``).
    /// - Returns: whether it matches.
    public func matches(_ subject: [UInt8]) -> Bool {
        subject.withUnsafeBufferPointer { matches($0) }
    }

    /// Matches a UTF-8 string, folding its case first when the pattern was compiled case-folded.
    /// - Parameter text: the subject.
    /// - Returns: whether it matches.
    public func matches(_ text: String) -> Bool {
        if isCaseFolded { return matches(Array(text.lowercased().utf8)) }
        return text.utf8.withContiguousStorageIfAvailable { matches($0) } ?? matches(Array(text.utf8))
    }

    /// The classic two-pointer glob match: linear in practice, O(n·m) worst case, never exponential.
    private func matchesLinear(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var p = 0
        var i = 0
        var starP = -1
        var starI = 0
        let m = elements.count
        while i < s.count {
            if p < m {
                let element = elements[p]
                if element == .star {
                    starP = p
                    starI = i
                    p += 1
                    continue
                }
                if let length = Self.step(element, s, i) {
                    p += 1
                    i += length
                    continue
                }
            }
            if starP >= 0 {
                starI += UTF8Scalar.length(s, starI)
                i = starI
                p = starP + 1
                continue
            }
            return false
        }
        while p < m, elements[p] == .star { p += 1 }
        return p == m
    }

    /// Dynamic programming over (element, offset): O(elements × bytes) steps, no recursion, never exponential.
    private func matchesWithTable(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = s.count
        let m = elements.count
        let width = n + 1
        // table[p * width + i]: whether elements[p...] match s[i...]. Small tables live on the stack.
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: (m + 1) * width) { table in
            table.initialize(repeating: false)
            table[m * width + n] = true
            var i = n
            while i >= 0 {
                var p = m - 1
                while p >= 0 {
                    let matched: Bool
                    switch elements[p] {
                    case .star:
                        matched =
                            table[(p + 1) * width + i] || (i < n && table[p * width + i + UTF8Scalar.length(s, i)])
                    case .alternatives(let options):
                        matched = options.contains(at: i, in: s) { table[(p + 1) * width + i + $0] }
                    case .patterns(let options):
                        matched = options.contains { option in
                            Self.ends(of: option, in: s, from: i).contains { table[(p + 1) * width + $0] }
                        }
                    default:
                        matched = Self.step(elements[p], s, i).map { table[(p + 1) * width + i + $0] } ?? false
                    }
                    table[p * width + i] = matched
                    p -= 1
                }
                i -= 1
            }
            return table[0]
        }
    }

    /// How many bytes a single-width element consumes at `i`, or nil if it does not match there.
    private static func step(_ element: Element, _ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        guard i < s.count else { return nil }
        switch element {
        case .byte(let byte):
            return s[i] == byte ? 1 : nil
        case .one:
            return UTF8Scalar.length(s, i)
        case .characterClass(let characterClass):
            let (scalar, length) = UTF8Scalar.decode(s, i)
            return characterClass.contains(scalar) ? length : nil
        case .alternatives(let options):
            return options.longest(at: i, in: s)
        case .star, .patterns:
            return nil
        }
    }

    /// Every offset at which a small pattern starting at `start` can end: a set of positions stepped element by
    /// element (O(elements × bytes)), so a value like `a*z` never backtracks.
    private static func ends(of option: [Element], in s: UnsafeBufferPointer<UInt8>, from start: Int) -> [Int] {
        var positions = [start]
        for element in option {
            var next: Set<Int> = []
            if element == .star {
                for var k in positions where next.insert(k).inserted {
                    while k < s.count {
                        k += UTF8Scalar.length(s, k)
                        guard next.insert(k).inserted else { break }
                    }
                }
            } else {
                for k in positions {
                    if let length = step(element, s, k) { next.insert(k + length) }
                }
            }
            if next.isEmpty { return [] }
            positions = Array(next)
        }
        return positions
    }
}
