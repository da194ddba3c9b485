import Foundation

/// Compiles pattern text into a ``Pattern``, reporting the first problem with its offset in the text.
public struct PatternCompiler: Sendable {
    /// A problem in pattern text, at an offset in Unicode scalars from the start of the pattern.
    public struct Failure: Error, Equatable {
        /// Where the problem starts, in Unicode scalars from the start of the text.
        public var offset: Int
        /// What is wrong, naming the pattern.
        public var message: String

        /// Creates a failure.
        /// - Parameters:
        ///   - offset: where the problem starts.
        ///   - message: what is wrong.
        public init(offset: Int, message: String) {
            self.offset = offset
            self.message = message
        }
    }

    /// The file's `substitutionVariables`.
    public var variables: [String: [String]]
    /// Fold case (the `caseSensitive: false` setting).
    public var foldsCase: Bool
    /// Compare against the URI as written (`percentEncoded: true`): non-ASCII literals are percent-encoded.
    public var percentEncoded: Bool
    /// Whether `$(name)` refers to a variable; false inside a variable's own values, where it is literal text.
    var allowsVariables = true

    /// Creates a compiler.
    /// - Parameters:
    ///   - variables: the substitution variables and their values.
    ///   - foldsCase: fold case.
    ///   - percentEncoded: compare against URIs as written.
    public init(variables: [String: [String]], foldsCase: Bool, percentEncoded: Bool) {
        self.variables = variables
        self.foldsCase = foldsCase
        self.percentEncoded = percentEncoded
    }

    /// ISO 639 language codes, for `$(lang)`.
    static let languageCodes: [String] = Locale.LanguageCode.isoLanguageCodes.map(\.identifier)
        .filter { $0.allSatisfy(\.isLetter) }
    /// ISO 3166 alpha-2 region codes, for `$(region)`.
    static let regionCodes: [String] = Locale.Region.isoRegions.map(\.identifier)
        .filter { $0.count == 2 && $0.allSatisfy(\.isLetter) }

    /// Compiles `text`.
    /// - Parameter text: the pattern as written in the rules file.
    /// - Returns: the compiled pattern.
    /// - Throws: ``Failure`` for a dangling backslash, an unknown escape, an unterminated `$(` or an unknown
    ///   variable.
    public func compile(_ text: String) throws(Failure) -> Pattern {
        var elements: [Pattern.Element] = []
        var literal = ""
        func flush() {
            guard !literal.isEmpty else { return }
            elements += normalize(literal).map { .byte($0) }
            literal = ""
        }
        // Unicode scalars, not `Character`s: a wildcard or an escape followed by a combining mark (`?\u{301}`)
        // would otherwise be one grapheme cluster, a literal; the matcher's `?` is one scalar too.
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\":
                guard index + 1 < scalars.count else {
                    throw Failure(offset: index, message: "dangling '\\' at the end of pattern '\(text)'")
                }
                let next = scalars[index + 1]
                guard "*?$\\".unicodeScalars.contains(next) else {
                    throw Failure(
                        offset: index,
                        message: "unknown escape '\\\(next)' in pattern '\(text)' (only \\*, \\?, \\$ and \\\\ exist)")
                }
                literal.unicodeScalars.append(next)
                index += 2
                continue
            case "*":
                flush()
                if elements.last != .star { elements.append(.star) }
            case "?":
                flush()
                elements.append(.one)
            case "$" where allowsVariables && index + 1 < scalars.count && scalars[index + 1] == "(":
                flush()
                guard let close = scalars[(index + 2)...].firstIndex(of: ")") else {
                    throw Failure(offset: index, message: "unterminated '$(' in pattern '\(text)'")
                }
                let name = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
                elements.append(try variable(name, offset: index))
                index = close + 1
                continue
            default:
                literal.unicodeScalars.append(scalar)
            }
            index += 1
        }
        flush()
        return Pattern(source: text, isCaseFolded: foldsCase, elements: elements)
    }

    private func variable(_ name: String, offset: Int) throws(Failure) -> Pattern.Element {
        if let characterClass = CharacterClass(rawValue: name) {
            if foldsCase, characterClass == .upper || characterClass == .lower { return .characterClass(.alpha) }
            return .characterClass(characterClass)
        }
        switch name {
        case "lang": return .alternatives(Self.languageOptions[mode])
        case "region": return .alternatives(Self.regionOptions[mode])
        default:
            guard let defined = variables[name] else {
                let known = CharacterClass.allCases.map(\.rawValue) + ["lang", "region"] + variables.keys.sorted()
                let hint = Suggestion.closest(to: name, in: known).map { " (did you mean '$(\($0))'?)" } ?? ""
                throw Failure(offset: offset, message: "unknown substitution variable '$(\(name))'\(hint)")
            }
            return try alternatives(defined, of: name, offset: offset)
        }
    }

    /// A user variable's alternatives: literal values as bytes, or, when a value holds `*` or `?` (which Apple
    /// allows in values), every value as a small pattern of its own (docs/rules.md, "Substitution variables").
    private func alternatives(_ values: [String], of name: String, offset: Int) throws(Failure) -> Pattern.Element {
        guard values.contains(where: { $0.contains("*") || $0.contains("?") }) else {
            return .alternatives(Alternatives(options(values)))
        }
        var inner = self
        inner.allowsVariables = false
        var patterns: [[Pattern.Element]] = []
        for value in Set(values).sorted() {
            do {
                patterns.append(try inner.compile(value).elements)
            } catch {
                throw Failure(offset: offset, message: "value '\(value)' of '$(\(name))': \(error.message)")
            }
        }
        return .patterns(patterns)
    }

    /// The alternatives of a variable: its values normalized, without duplicates, longest first, so that a
    /// shorter value that is a prefix of a longer one does not shadow it.
    func options(_ values: [String]) -> [[UInt8]] {
        Set(values.map(normalize)).sorted {
            $0.count > $1.count || ($0.count == $1.count && $0.lexicographicallyPrecedes($1))
        }
    }

    /// The index of this compiler's settings in ``languageOptions`` and ``regionOptions``.
    private var mode: Int { (foldsCase ? 1 : 0) + (percentEncoded ? 2 : 0) }

    /// A compiler for each ``mode``.
    private static let modes = (0..<4).map {
        PatternCompiler(variables: [:], foldsCase: $0 & 1 != 0, percentEncoded: $0 & 2 != 0)
    }
    /// `$(lang)`'s alternatives for each ``mode``, computed once: hundreds of codes, which every pattern naming
    /// the variable would otherwise normalize and sort again.
    static let languageOptions = modes.map { Alternatives($0.options(languageCodes)) }
    /// `$(region)`'s alternatives for each ``mode``, computed once.
    static let regionOptions = modes.map { Alternatives($0.options(regionCodes)) }

    /// The bytes a literal stands for: percent-encoded when comparing to the URI as written, then case-folded.
    public func normalize(_ text: String) -> [UInt8] {
        var bytes = percentEncoded ? URIText.normalizedEncoding(Array(text.utf8)) : Array(text.utf8)
        if foldsCase { bytes = Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8) }
        return bytes
    }
}
