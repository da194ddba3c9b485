import AASAPatterns
import Foundation

/// Parses template text and expands `${NAME}` / `${NAME:-default}` (docs/rules.md, "Environment variables in rules" and "Placeholders").
///
/// `${NAME}` is the systemd credential `NAME` when `$CREDENTIALS_DIRECTORY` holds one (``Credentials``), else the
/// environment variable `NAME`, else the default.
struct TemplateParser {
    /// The environment `${NAME}` reads, and the credentials directory it may name.
    var environment: [String: String]

    /// Parses `text` into a template: `{name}` placeholders (unknown names are errors), `{{` and `}}` for literal
    /// braces, `${NAME}` secrets. A `{` that does not start a placeholder name (as in JSON text) is literal.
    func template(_ text: String) throws(PatternCompiler.Failure) -> Template {
        var segments: [Template.Segment] = []
        var literal = ""
        let characters = Array(text)
        var index = 0
        func flush() {
            if !literal.isEmpty { segments.append(.literal(literal)) }
            literal = ""
        }
        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "$", next == "{" {
                let (name, value, end) = try variable(characters, at: index, text: text)
                flush()
                segments.append(.secret(name: name, value: value))
                index = end
            } else if character == "{", next == "{" {
                literal.append("{")
                index += 2
            } else if character == "}", next == "}" {
                literal.append("}")
                index += 2
            } else if character == "{", let close = Self.placeholderEnd(characters, from: index + 1) {
                let name = String(characters[(index + 1)..<close])
                guard let placeholder = Placeholder(name: name) else {
                    let known = Placeholder.byName.keys.sorted() + ["query.NAME"]
                    let hint = Suggestion.closest(to: name, in: known).map { " (did you mean '{\($0)}'?)" } ?? ""
                    throw PatternCompiler.Failure(offset: index, message: "unknown placeholder '{\(name)}'\(hint)")
                }
                flush()
                segments.append(.placeholder(placeholder))
                index = close + 1
            } else {
                literal.append(character)
                index += 1
            }
        }
        flush()
        return Template(segments: segments)
    }

    /// `text` with every `${NAME}` expanded, and whether there was any (then the value must not be printed).
    func expand(_ text: String) throws(PatternCompiler.Failure) -> (value: String, hasSecrets: Bool) {
        guard text.contains("${") else { return (text, false) }
        let characters = Array(text)
        var out = ""
        var index = 0
        while index < characters.count {
            if characters[index] == "$", index + 1 < characters.count, characters[index + 1] == "{" {
                let (_, value, end) = try variable(characters, at: index, text: text)
                out += value
                index = end
            } else {
                out.append(characters[index])
                index += 1
            }
        }
        return (out, true)
    }

    /// Reads `${NAME}` or `${NAME:-default}` at `start`; returns the name, the value and the index after `}`.
    private func variable(_ characters: [Character], at start: Int, text: String) throws(PatternCompiler.Failure)
        -> (String, String, Int)
    {
        guard let close = characters[(start + 2)...].firstIndex(of: "}") else {
            throw PatternCompiler.Failure(offset: start, message: "unterminated '${' in '\(text)'")
        }
        let inner = String(characters[(start + 2)..<close])
        var name = inner
        var fallback: String?
        if let range = inner.range(of: ":-") {
            name = String(inner[..<range.lowerBound])
            fallback = String(inner[range.upperBound...])
        }
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter),
            name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
        else {
            throw PatternCompiler.Failure(offset: start, message: "invalid environment variable name '\(name)'")
        }
        let credential: String?
        do {
            credential = try Credentials.value(of: name, environment: environment)
        } catch {
            throw PatternCompiler.Failure(offset: start, message: error.message)
        }
        guard let value = credential ?? environment[name] ?? fallback else {
            let credentials =
                Credentials.directory(in: environment) == nil
                ? "" : " and $\(Credentials.directoryVariable) has no credential '\(name)'"
            throw PatternCompiler.Failure(
                offset: start,
                message:
                    "environment variable '\(name)' is not set\(credentials) (write '${\(name):-default}' for a default)"
            )
        }
        return (name, value, close + 1)
    }

    /// The index of the `}` closing a placeholder name that starts at `start`, if the text there is one.
    private static func placeholderEnd(_ characters: [Character], from start: Int) -> Int? {
        guard start < characters.count, characters[start].isASCII,
            characters[start].isLetter || characters[start] == "_"
        else { return nil }
        var index = start
        while index < characters.count {
            let character = characters[index]
            if character == "}" { return index }
            guard character.isASCII, character.isLetter || character.isNumber || "_.-".contains(character) else {
                return nil
            }
            index += 1
        }
        return nil
    }
}
