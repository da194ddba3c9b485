/// What `explain` says about one rule.
public struct Explanation: Sendable, Hashable, Encodable {
    /// The verdict on a rule.
    public enum Verdict: String, Sendable, Hashable, Encodable {
        /// The rule matched.
        case matched
        /// The rule did not match.
        case noMatch = "no-match"
        /// An earlier rule matched without `continue`, so this one was not looked at.
        case notEvaluated = "not-evaluated"
        /// A door rule refused the tag (``Explanation/denial`` says why).
        case refused
    }

    /// The rule's name.
    public var rule: String
    /// Where the rule is written.
    public var location: SourceLocation
    /// The verdict.
    public var verdict: Verdict
    /// The condition or component object that decided.
    public var reason: String
    /// The later events of a presentation the rule reacts to (`removed`, `held`, `returned`); nil for a rule
    /// without an `on:` block.
    public var events: [String]? = nil
    /// Why a door rule refused the tag; nil unless the verdict is ``Verdict/refused``.
    public var denial: DenialReason? = nil
}
