/// What loading rules produced: the rule set (unless there were errors) and every diagnostic.
public struct LoadResult: Sendable {
    /// The rules, nil if any diagnostic is an error.
    public var ruleSet: RuleSet?
    /// Every error and warning of every file, in file order then line order.
    public var diagnostics: [Diagnostic]
    /// How many files were read.
    public var fileCount: Int
    /// How many rules were read (including invalid ones).
    public var ruleCount: Int

    /// The rule set, or the error listing the diagnostics.
    /// - Returns: the rule set.
    /// - Throws: ``TagRulesError`` with code ``TagRulesError/Code/invalidRules`` when there are errors.
    public func get() throws -> RuleSet {
        if let ruleSet { return ruleSet }
        let errors = diagnostics.filter { $0.severity == .error }
        let first = errors.first.map { ": \($0.headline)" } ?? ""
        throw TagRulesError(
            code: .invalidRules,
            message: "rules have \(errors.count) error\(errors.count == 1 ? "" : "s")\(first)",
            diagnostics: diagnostics)
    }
}
