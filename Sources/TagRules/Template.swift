import AASAPatterns
import NDEF

/// A string with placeholders (`{uri}`, `{query.NAME}`…) and expanded `${VAR}` secrets, parsed when the rules
/// load and rendered for each tag event (docs/rules.md, "Placeholders").
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// One piece of a template.
    enum Segment: Sendable, Hashable {
        /// Text copied as is.
        case literal(String)
        /// A value taken from the event.
        case placeholder(Placeholder)
        /// The value of environment variable `name`, never shown: human output prints `${name}` instead.
        case secret(name: String, value: String)
    }

    /// How placeholder values are escaped when rendered (literal text and secrets never are).
    public enum Escaping: Sendable, Hashable {
        /// As is: elements of an argument vector, URIs to open.
        case plain
        /// Percent-encoded (RFC 3986 unreserved characters kept): webhook URLs.
        case url
        /// Escaped for the inside of a JSON string: JSON bodies.
        case json
        /// As is, but a CR or LF is an error: HTTP header values.
        case header
        /// `/`, `+`, `#`, control characters and a `$` starting a level replaced by `_`: MQTT topics (a value
        /// never adds a level or a wildcard, nor names a `$` topic).
        case topic
        /// As is, but a control character (line breaks and tabs included) or a format character (bidi
        /// overrides, zero-width characters) is an error: text typed into the desktop (`type:`), where only the
        /// rule's own literal `\n` and `\t` may press Return or Tab.
        case keystrokes
    }

    let segments: [Segment]

    init(segments: [Segment]) {
        self.segments = segments
    }

    /// Creates a template of literal text only (no placeholders are recognized).
    /// - Parameter literal: the text.
    public init(literal: String) {
        self.segments = literal.isEmpty ? [] : [.literal(literal)]
    }

    /// The template as a user wrote it, with secrets shown as `${NAME}`.
    public var description: String {
        segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .placeholder(let placeholder): "{\(placeholder.name)}"
            case .secret(let name, _): "${\(name)}"
            }
        }.joined()
    }

    /// The text before the first placeholder, with secrets expanded (to check a URL's scheme at load time).
    var staticPrefix: String {
        var prefix = ""
        for segment in segments {
            switch segment {
            case .literal(let text): prefix += text
            case .secret(_, let value): prefix += value
            case .placeholder: return prefix
            }
        }
        return prefix
    }

    /// The placeholders of the template, in order.
    var placeholders: [Placeholder] {
        segments.compactMap { if case .placeholder(let placeholder) = $0 { placeholder } else { nil } }
    }

    /// Whether the template contains no placeholder.
    var isStatic: Bool {
        !segments.contains { if case .placeholder = $0 { true } else { false } }
    }

    /// Renders the template for an event.
    /// - Parameters:
    ///   - values: the event's placeholder values.
    ///   - escaping: how to escape placeholder values.
    ///   - masksSecrets: print `${NAME}` instead of the values of environment variables (human output).
    /// - Returns: the text.
    /// - Throws: ``TagRulesError`` with code ``TagRulesError/Code/headerInjection`` when `escaping` is
    ///   ``Escaping/header`` and a value contains CR or LF.
    public func render(_ values: PlaceholderValues, escaping: Escaping, masksSecrets: Bool = false) throws -> String {
        var out = ""
        for segment in segments {
            switch segment {
            case .literal(let text):
                out += text
            case .secret(let name, let value):
                out += masksSecrets ? "${\(name)}" : value
            case .placeholder(let placeholder):
                let value = values[placeholder]
                switch escaping {
                case .plain: out += value
                case .url: out += URIText.percentEncodedComponent(value)
                case .json: out += PrintableText.json(value)
                case .header:
                    if value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
                        throw TagRulesError(
                            code: .headerInjection,
                            message: "placeholder {\(placeholder.name)} would put a line break into an HTTP header")
                    }
                    out += value
                case .topic: out += MQTTTopic.level(value, startsLevel: out.isEmpty || out.hasSuffix("/"))
                case .keystrokes:
                    if let bad = value.unicodeScalars.first(where: {
                        $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
                    }) {
                        throw TagRulesError(
                            code: .keystrokeInjection,
                            message: "placeholder {\(placeholder.name)} would type the character "
                                + "U+\(String(bad.value, radix: 16, uppercase: true)) into the desktop")
                    }
                    out += value
                }
            }
        }
        return out
    }
}
