public import Foundation

extension RuleSet {
    /// Every rule's live association file (`aasa: { domain:, appID: }`), in rule order.
    public var associatedDomains: [AssociatedDomain] {
        rules.compactMap(\.conditions.live)
    }

    /// The domains whose association files the rules use, each once, sorted.
    public var liveDomains: [String] {
        Set(associatedDomains.map(\.domain)).sorted()
    }

    /// The same rules with the components of the fetched association files swapped in (docs/rules.md, "Live
    /// association files"). A rule whose domain has no file, or whose file it cannot use (no entry for its
    /// appID, a bad pattern), matches nothing, and `explain` says why. The rules files are not read again.
    /// - Parameter files: the fetched files by domain.
    /// - Returns: the rule set to match with.
    public func applying(_ files: [String: AssociationFile]) -> RuleSet {
        guard rules.contains(where: { $0.conditions.live != nil }) else { return self }
        let updated = rules.map { rule -> Rule in
            guard let live = rule.conditions.live else { return rule }
            var conditions = rule.conditions
            conditions.components = nil
            if let file = files[live.domain] {
                switch FileParser.liveComponents(file, for: live) {
                case .success(let objects):
                    conditions.components = objects
                    conditions.unavailable = nil
                case .failure(let problem):
                    conditions.unavailable =
                        "aasa: the association file of \(live.domain) fetched \(Self.shown(file.fetchedAt)) cannot be "
                        + "used: \(problem.reason), so the rule matches nothing"
                }
            } else {
                conditions.unavailable = MatchConditions.notFetched(live.domain)
            }
            var copy = rule
            copy.setConditions(conditions)
            return copy
        }
        var copy = RuleSet(rules: updated, files: self.files, mqtt: mqtt, tags: tags, readers: readers, index: index)
        copy.history = history
        return copy
    }

    /// Why a fetched file cannot be used by a rule of this set for `domain`, or nil when every rule can use it:
    /// the router keeps its last good copy instead of a file for which this is not nil.
    /// - Parameters:
    ///   - data: the fetched body.
    ///   - domain: the domain it came from.
    /// - Returns: one sentence naming the domain, or nil.
    public func problem(with data: Data, for domain: String) -> String? {
        let file = AssociationFile(data: data, fetchedAt: Date())
        for use in associatedDomains where use.domain == domain {
            if case .failure(let problem) = FileParser.liveComponents(file, for: use) {
                return "\(domain): \(problem.reason) (for rule '\(use.rule)' at \(use.location))"
            }
        }
        return nil
    }

    /// The components a rule takes from its live file, in one line each (`explain`-style), for `tagrouter aasa
    /// show`; nil when the rule has none in force.
    /// - Parameter rule: the rule's name.
    /// - Returns: each component object's summary.
    public func liveComponentSummaries(of rule: String) -> [String]? {
        guard let found = rules.first(where: { $0.name == rule }), found.conditions.live != nil,
            let components = found.conditions.components
        else { return nil }
        return components.map(\.summary)
    }

    /// Why a rule with a live file matches nothing for now, or nil when its components are in force.
    /// - Parameter rule: the rule's name.
    /// - Returns: the reason `explain` gives.
    public func unavailableReason(of rule: String) -> String? {
        rules.first { $0.name == rule }?.conditions.unavailable
    }

    private static func shown(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}
