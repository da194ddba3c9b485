/// One problem found while loading rules, located at a file, line and column (compiler style).
public struct Diagnostic: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// How bad a diagnostic is: errors make a rule set unusable, warnings do not.
    public enum Severity: String, Sendable, Hashable, Encodable {
        /// The rules cannot be used as written.
        case error
        /// Worth a look, but the rules load.
        case warning
    }

    /// The file as it was named when loading (a source path, or a file inside a source folder).
    public var file: String
    /// The line, from 1; 0 when the problem is about the file as a whole.
    public var line: Int
    /// The column in Unicode scalars, from 1; 0 when the problem is about the file as a whole.
    public var column: Int
    /// Error or warning.
    public var severity: Severity
    /// What is wrong and what was expected, one sentence without a final period.
    public var message: String
    /// The text of the offending line, when there is one.
    public var sourceLine: String?

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - file: the file name.
    ///   - line: the line, from 1 (0 for the whole file).
    ///   - column: the column, from 1 (0 for the whole file).
    ///   - severity: error or warning.
    ///   - message: what is wrong.
    ///   - sourceLine: the offending line's text, if known.
    public init(
        file: String,
        line: Int,
        column: Int,
        severity: Severity = .error,
        message: String,
        sourceLine: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.message = message
        self.sourceLine = sourceLine
    }

    /// The first line of the rendering: `file:line:col: severity: message`.
    public var headline: String {
        line > 0
            ? "\(file):\(line):\(column): \(severity.rawValue): \(message)"
            : "\(file): \(severity.rawValue): \(message)"
    }

    /// The compiler-style rendering: the headline, then the offending line and a caret under the column.
    public var description: String {
        guard let sourceLine, line > 0, column > 0 else { return headline }
        var caret = ""
        for (offset, scalar) in sourceLine.unicodeScalars.enumerated() where offset < column - 1 {
            caret.append(scalar == "\t" ? "\t" : " ")
        }
        return headline + "\n" + sourceLine + "\n" + caret + "^"
    }

    private enum CodingKeys: String, CodingKey {
        case file, line, column, severity, message
    }
}

extension [Diagnostic] {
    /// Whether any of these diagnostics is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }
}
