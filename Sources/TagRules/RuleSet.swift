import AASAPatterns

/// A loaded, validated set of rules in load order, indexed for matching (docs/rules.md, "Order and fan-out").
public struct RuleSet: Sendable {
    /// The rules in load order.
    public let rules: [Rule]
    /// The files the rules came from, in load order.
    public let files: [String]
    /// The MQTT broker of the `mqtt:` block, if a file has one (docs/rules.md, "`mqtt:`: the broker").
    public let mqtt: MQTTSettings?
    let index: RuleIndex

    /// Creates a rule set from validated rules.
    init(rules: [Rule], files: [String], mqtt: MQTTSettings? = nil) {
        self.rules = rules
        self.files = files
        self.mqtt = mqtt
        self.index = RuleIndex(rules: rules)
    }

    /// A rule set with other conditions for the same rules: the index, which files rules by domain and scheme
    /// only, stays valid.
    init(rules: [Rule], files: [String], mqtt: MQTTSettings?, index: RuleIndex) {
        self.rules = rules
        self.files = files
        self.mqtt = mqtt
        self.index = index
    }

    /// Loads rules from files and folders (a folder: its `*.yaml`/`*.yml` files in byte order of the name).
    /// - Parameters:
    ///   - sources: files and folders, in order.
    ///   - environment: the variables `${NAME}` may name.
    /// - Returns: the rules and every diagnostic of every file; ``LoadResult/ruleSet`` is nil if any is an error.
    public static func load(sources: [String], environment: [String: String]) -> LoadResult {
        var loader = RuleLoader(environment: environment)
        return loader.load(sources: sources)
    }

    /// Loads rules from in-memory files (for tests and tools).
    /// - Parameters:
    ///   - files: file names (as shown in diagnostics) and their YAML text, in order.
    ///   - environment: the variables `${NAME}` may name.
    ///   - directory: where relative `aasa:` paths are looked up.
    /// - Returns: the rules and every diagnostic.
    public static func load(
        files: [(name: String, text: String)], environment: [String: String], directory: String = "."
    ) -> LoadResult {
        var loader = RuleLoader(environment: environment)
        return loader.load(texts: files, directory: directory)
    }

    /// The rules that match an event: the first matching rule, preceded by every matching `continue: true` rule
    /// before it (docs/rules.md, "Order and fan-out"). Empty: the tag is ignored.
    /// - Parameter event: the tag event.
    /// - Returns: the matched rules in order.
    public func match(_ event: TagEvent) -> [MatchedRule] {
        var subject = event.uri.flatMap(ParsedURI.init).map(MatchSubject.init)
        var matched: [MatchedRule] = []
        for candidate in index.candidates(for: subject?.uri, uid: event.uid) {
            // Evaluated in place: copying a Rule per candidate would retain all its fields.
            guard rules[candidate].matcher.conditions.evaluate(event, &subject, explaining: false).matched else {
                continue
            }
            let rule = rules[candidate]
            matched.append(MatchedRule(index: candidate, rule: rule))
            if !rule.continues { break }
        }
        return matched
    }

    /// Every rule in order, whether it matched and what decided (docs/cli.md, "tagrouter match").
    /// - Parameter event: the tag event.
    /// - Returns: one explanation per rule.
    public func explain(_ event: TagEvent) -> [Explanation] {
        var subject = event.uri.flatMap(ParsedURI.init).map(MatchSubject.init)
        let candidates = Set(index.candidates(for: subject?.uri, uid: event.uid))
        var decided = false
        return rules.enumerated().map { position, rule in
            var explanation = explain(
                rule, at: position, event: event, subject: &subject, candidates: candidates,
                decided: &decided)
            explanation.events = rule.on.isEmpty ? nil : rule.on.kinds.dropFirst().map(\.rawValue)
            return explanation
        }
    }

    private func explain(
        _ rule: Rule, at position: Int, event: TagEvent, subject: inout MatchSubject?, candidates: Set<Int>,
        decided: inout Bool
    ) -> Explanation {
        if decided {
            return Explanation(
                rule: rule.name, location: rule.location, verdict: .notEvaluated,
                reason: "an earlier rule matched without `continue`")
        }
        let outcome = rule.matcher.conditions.evaluate(event, &subject, explaining: true)
        if outcome.matched {
            decided = !rule.continues
            return Explanation(
                rule: rule.name, location: rule.location, verdict: .matched,
                reason: outcome.reason + (rule.continues ? " (continue: true)" : ""))
        }
        let indexNote = candidates.contains(position) ? "" : " (skipped by the index)"
        return Explanation(
            rule: rule.name, location: rule.location, verdict: .noMatch, reason: outcome.reason + indexNote)
    }
}
