/// A rule that matched, with its position in load order.
public struct MatchedRule: Sendable {
    /// The rule's position in ``RuleSet/rules``.
    public var index: Int
    /// The rule.
    public var rule: Rule
}
