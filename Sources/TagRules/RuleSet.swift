import AASAPatterns
public import Foundation

/// A loaded, validated set of rules in load order, indexed for matching (docs/rules.md, "Order and fan-out").
public struct RuleSet: Sendable {
    /// The rules in load order.
    public let rules: [Rule]
    /// The files the rules came from, in load order.
    public let files: [String]
    /// The MQTT broker of the `mqtt:` block, if a file has one (docs/rules.md, "`mqtt:`: the broker").
    public let mqtt: MQTTSettings?
    /// The enrolled tags of the tags file (docs/doors.md, "The tags file"); empty without one.
    public let tags: KnownTags
    /// The `readers:` entries of every file, in load order (docs/rules.md, "`readers:`: what the reader shows").
    public let readers: [ReaderSettings]
    /// The `history:` block, if a file has one (docs/operations.md, "Retention of the history").
    public internal(set) var history: HistorySettings?
    /// The `console:` block, if a file has one (docs/console.md).
    public internal(set) var console: ConsoleBlock?
    let index: RuleIndex
    /// The positions of the door rules, whose refusals are recorded.
    let doors: [Int]

    /// Creates a rule set from validated rules.
    init(
        rules: [Rule], files: [String], mqtt: MQTTSettings? = nil, tags: KnownTags = KnownTags(),
        readers: [ReaderSettings] = []
    ) {
        self.init(
            rules: rules, files: files, mqtt: mqtt, tags: tags, readers: readers, index: RuleIndex(rules: rules))
    }

    /// A rule set with other conditions for the same rules: the index, which files rules by domain and scheme
    /// only, stays valid.
    init(
        rules: [Rule], files: [String], mqtt: MQTTSettings?, tags: KnownTags, readers: [ReaderSettings],
        index: RuleIndex
    ) {
        self.rules = rules
        self.readers = readers
        self.files = files
        self.mqtt = mqtt
        self.tags = tags
        self.index = index
        self.doors = rules.indices.filter { rules[$0].isDoor }
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

    /// Whether a door rule may decide taps on `reader`: its `reader` condition accepts the name, or it has none
    /// (docs/operations.md, "The decision stream").
    /// - Parameter reader: the reader name.
    public func isDoorReader(_ reader: String) -> Bool {
        doors.contains { rules[$0].conditions.reader?.matches(reader) ?? true }
    }

    /// The rules that match an event now (see ``decide(_:at:)``).
    /// - Parameter event: the tag event.
    /// - Returns: the matched rules in order.
    public func match(_ event: TagEvent) -> [MatchedRule] {
        decide(event, at: Date()).matches
    }

    /// The tag's enrolled entry, looked up by UID, and the rules that match it at `date`: the first matching rule,
    /// preceded by every matching `continue: true` rule before it (docs/rules.md, "Order and fan-out"); and when
    /// no rule decided (none without `continue` matched), the refusal of a door rule, if one refused it
    /// (docs/doors.md, "Refusals").
    /// - Parameters:
    ///   - event: the tag event.
    ///   - date: when (for `when` and the validity of enrolled tags).
    /// - Returns: the decision; no match and no refusal: the tag is ignored.
    public func decide(_ event: TagEvent, at date: Date) -> Decision {
        var event = event
        event.known = tags[uid: event.uid]
        var subject = event.uri.flatMap(ParsedURI.init).map(MatchSubject.init)
        var matched: [MatchedRule] = []
        for candidate in index.candidates(for: subject?.uri, uid: event.uid) {
            // Evaluated in place: copying a Rule per candidate would retain all its fields.
            let outcome = rules[candidate].matcher.conditions.evaluate(
                event, &subject, at: date, explaining: false, enrolled: { tags[uid: $0] })
            guard outcome.matched else { continue }
            if event.sun == nil { event.sun = outcome.sun }
            let rule = rules[candidate]
            matched.append(MatchedRule(index: candidate, rule: rule))
            if !rule.continues { return Decision(event: Self.identifiedBySUN(event, tags), matches: matched) }
        }
        var refusal: Refusal?
        var refusedSUN: VerifiedSUN?
        for door in doors {
            let outcome = rules[door].matcher.conditions.evaluate(
                event, &subject, at: date, explaining: false, enrolled: { tags[uid: $0] })
            guard let reason = outcome.refusal, reason.rank > refusal?.reason.rank ?? -1 else { continue }
            refusal = Refusal(index: door, rule: rules[door], reason: reason)
            refusedSUN = outcome.sun
        }
        // A message a refusing rule verified (refused for its window, say) is still the tag's: {sun.*} show it.
        if event.sun == nil { event.sun = refusedSUN }
        return Decision(event: Self.identifiedBySUN(event, tags), matches: matched, refusal: refusal)
    }

    /// The event with the enrolled entry of the UID its verified SUN message names, when the reader's UID (random,
    /// for an NTAG 424 DNA set so) names none: `{tag.name}` follows the tag that proved itself. Its URI shows
    /// `<sun>` in place of the message (``VerifiedSUN/redacted(_:)``): from here on, the log, the history, the
    /// event documents and every placeholder see the URI without a message anyone could present again.
    private static func identifiedBySUN(_ event: TagEvent, _ tags: KnownTags) -> TagEvent {
        guard let sun = event.sun else { return event }
        var event = event
        if event.known == nil { event.known = tags[uid: sun.uid] }
        event.uri = event.uri.map(sun.redacted)
        return event
    }

    /// Every rule in order, whether it matched and what decided (docs/cli.md, "tagrouter match").
    /// - Parameters:
    ///   - event: the tag event.
    ///   - date: when; now by default.
    /// - Returns: one explanation per rule.
    public func explain(_ event: TagEvent, at date: Date = Date()) -> [Explanation] {
        var event = event
        event.known = tags[uid: event.uid]
        var subject = event.uri.flatMap(ParsedURI.init).map(MatchSubject.init)
        let candidates = Set(index.candidates(for: subject?.uri, uid: event.uid))
        var decided = false
        return rules.enumerated().map { position, rule in
            var explanation = explain(
                rule, at: position, event: event, date: date, subject: &subject, candidates: candidates,
                decided: &decided)
            explanation.events = rule.on.isEmpty ? nil : rule.on.kinds.dropFirst().map(\.rawValue)
            return explanation
        }
    }

    private func explain(
        _ rule: Rule, at position: Int, event: TagEvent, date: Date, subject: inout MatchSubject?,
        candidates: Set<Int>, decided: inout Bool
    ) -> Explanation {
        if decided {
            return Explanation(
                rule: rule.name, location: rule.location, verdict: .notEvaluated,
                reason: "an earlier rule matched without `continue`")
        }
        let outcome = rule.matcher.conditions.evaluate(
            event, &subject, at: date, explaining: true, enrolled: { tags[uid: $0] })
        if outcome.matched {
            decided = !rule.continues
            return Explanation(
                rule: rule.name, location: rule.location, verdict: .matched,
                reason: outcome.reason + (rule.continues ? " (continue: true)" : ""))
        }
        if let refusal = outcome.refusal, rule.isDoor {
            return Explanation(
                rule: rule.name, location: rule.location, verdict: .refused, reason: outcome.reason,
                denial: refusal)
        }
        let indexNote = candidates.contains(position) ? "" : " (skipped by the index)"
        return Explanation(
            rule: rule.name, location: rule.location, verdict: .noMatch, reason: outcome.reason + indexNote)
    }
}

/// What the rules decide for one tag event (``RuleSet/decide(_:at:)``).
public struct Decision: Sendable {
    /// The event, with its enrolled entry (``TagEvent/known``) looked up.
    public var event: TagEvent
    /// The matched rules in order.
    public var matches: [MatchedRule]
    /// When no rule decided: the door rule that refused the tag, and why.
    public var refusal: Refusal?
}

/// A door rule's refusal of a tag (docs/doors.md, "Refusals").
public struct Refusal: Sendable {
    /// The rule's position in ``RuleSet/rules``.
    public var index: Int
    /// The rule.
    public var rule: Rule
    /// Why.
    public var reason: DenialReason

    /// When a tap's verified SUN message is a replay (its counter is not above the highest accepted): the rules
    /// that required it match no more, only the `continue: true` rules without `sun` still do, and the first of
    /// them refuses the tag (docs/doors.md, "SUN: tags that prove themselves").
    /// - Parameter matches: the tap's matched rules.
    /// - Returns: what still matches and the refusal; nil when no matched rule requires a SUN message.
    public static func replay(of matches: [MatchedRule]) -> (matches: [MatchedRule], refusal: Refusal)? {
        guard let first = matches.first(where: \.rule.requiresSUN) else { return nil }
        return (
            matches.filter { !$0.rule.requiresSUN && $0.rule.continues },
            Refusal(index: first.index, rule: first.rule, reason: .replay)
        )
    }

    /// Creates a refusal.
    /// - Parameters:
    ///   - index: the rule's position.
    ///   - rule: the rule.
    ///   - reason: why.
    public init(index: Int, rule: Rule, reason: DenialReason) {
        self.index = index
        self.rule = rule
        self.reason = reason
    }
}
