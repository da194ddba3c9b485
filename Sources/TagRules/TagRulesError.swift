/// The one error type of TagRules: rules that failed to load, or an action that could not be rendered.
public struct TagRulesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// The rules have errors; ``diagnostics`` lists them.
        case invalidRules
        /// A placeholder value would put a CR or LF into an HTTP header.
        case headerInjection
        /// A placeholder value would type a control or format character into the desktop (`type:`).
        case keystrokeInjection
    }

    /// What went wrong.
    public var code: Code
    /// One sentence naming what and where.
    public var message: String
    /// The diagnostics behind an ``Code/invalidRules`` error.
    public var diagnostics: [Diagnostic]

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: one sentence naming what and where.
    ///   - diagnostics: the diagnostics, for ``Code/invalidRules``.
    public init(code: Code, message: String, diagnostics: [Diagnostic] = []) {
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
    }

    /// The message.
    public var description: String { message }
}
