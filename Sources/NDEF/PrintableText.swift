/// Text that may come from a stranger's tag, made safe to print: inside a JSON string, or on one line of a log
/// or terminal, where a control character could otherwise end the line or drive the terminal. The one escaper
/// of TagRouter's outputs.
public enum PrintableText {
    /// Whether a scalar must never be printed as it is on a line: C0 controls, DEL, C1 controls (0x9B is a
    /// terminal's CSI) and the Unicode line and paragraph separators.
    /// - Parameter scalar: the scalar.
    /// - Returns: whether it is escaped on a line.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// `text` escaped for the inside of a JSON string (quotes not added): `"`, `\`, C0 controls, and U+2028 and
    /// U+2029 (which end a line in JavaScript).
    /// - Parameter text: the text.
    /// - Returns: the escaped text.
    public static func json(_ text: String) -> String {
        escaped(text) { scalar in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\u{2028}": "\\u2028"
            case "\u{2029}": "\\u2029"
            case _ where scalar.value < 0x20:
                "\\u" + String(repeating: "0", count: scalar.value < 0x10 ? 3 : 2) + String(scalar.value, radix: 16)
            default: nil
            }
        }
    }

    /// `text` for one line of a log or a terminal: every ``isControl(_:)`` scalar escaped (`\n`, `\r`, `\t`,
    /// else `\u{1B}`).
    /// - Parameters:
    ///   - text: the text.
    ///   - escapingQuotes: escape `"` and `\` too, for text printed inside double quotes.
    /// - Returns: the escaped text.
    public static func line(_ text: String, escapingQuotes: Bool = false) -> String {
        escaped(text) { scalar in
            switch scalar {
            case "\"" where escapingQuotes: "\\\""
            case "\\" where escapingQuotes: "\\\\"
            case _ where isControl(scalar): lineEscape(scalar)
            default: nil
            }
        }
    }

    private static func lineEscape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    /// `text` with every character that shows nothing or moves other text written out as `\u{XXXX}`: format
    /// characters (Unicode category Cf: the bidirectional controls U+202A-202E and U+2066-2069, the marks
    /// U+200E-200F, the zero-width U+200B-200D and U+2060-2064, U+FEFF, …), control characters (Cc) and the line
    /// and paragraph separators. A link that would show `https://bank.example` while holding something else
    /// shows what it holds; nothing is refused for it. The desktop's question before `open` and the console
    /// (docs/console.md) show tag text through this.
    /// - Parameter text: the text.
    /// - Returns: the text with those characters written out.
    public static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .format, .control, .lineSeparator, .paragraphSeparator:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u{" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The text with each scalar `replacement` names replaced, the others kept.
    private static func escaped(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) {
                out += replaced
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
