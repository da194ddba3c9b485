public import Foundation
import JSONOutput
import NDEF
import WebhookTarget

/// The outcome of `tagrouter match`: a dry run of one tag event against a rule set.
public struct MatchReport: Sendable, Encodable {
    /// The names of the rules that would run, in order.
    public var matched: [String]
    /// The actions that would run, rendered (secrets masked as `${NAME}`).
    public var actions: [RenderedAction]
    /// The rule that each action belongs to (parallel to ``actions``).
    public var actionRules: [String]
    /// Every rule's verdict, when asked for.
    public var explain: [Explanation]?
    /// Problems rendering actions (a header injection), if any.
    public var errors: [String]
    /// The later events of the presentation the matched rules react to (their `on:` blocks), with the actions
    /// each would run; `nil` (left out of the JSON) when no matched rule has an `on:` block.
    public var events: [LaterEvent]?
    /// When no rule decides: the door rule that would refuse the tag, why, and its `denied:` actions; `nil` (left
    /// out of the JSON) otherwise.
    public var denied: Denied?
    /// The enrolled name of the tag, if it is enrolled.
    public var tagName: String?

    /// A refusal, as `match` shows it.
    public struct Denied: Sendable, Encodable {
        /// The refusing rule.
        public var rule: String
        /// Why (`outside-window`, …).
        public var reason: DenialReason
        /// Its `denied:` actions, rendered.
        public var actions: [RenderedAction]
    }

    /// One later event of a matched rule.
    public struct LaterEvent: Sendable, Encodable {
        /// The rule.
        public var rule: String
        /// The event: `removed`, `held` or `returned`.
        public var event: String
        /// Its timing as written: `after 1s`, `for 2s`, `within 10m`.
        public var timing: String
        /// Its actions, rendered as for the tap.
        public var actions: [RenderedAction]
    }

    private enum CodingKeys: String, CodingKey {
        case matched, actions, explain, errors, events, denied, tagName
    }

    /// Runs the event through the rules without running anything.
    /// - Parameters:
    ///   - event: the tag event.
    ///   - ruleSet: the rules.
    ///   - explaining: include every rule's verdict.
    ///   - eventID: the event id shown for `{event_id}`.
    ///   - time: the time shown for `{time}`, as RFC 3339 text.
    ///   - date: when the tag is presented (for `when` and the validity of enrolled tags); now by default.
    ///   - highestSUNCounter: the highest counter the router accepted for a verified SUN message's key set and
    ///     UID (the state database's), so that a replay shows as one; nil: replays are not judged.
    public init(
        event: TagEvent, ruleSet: RuleSet, explaining: Bool, eventID: String, time: String, at date: Date = Date(),
        highestSUNCounter: ((VerifiedSUN) -> UInt32?)? = nil
    ) {
        let original = event
        var decision = ruleSet.decide(event, at: date)
        var replayNote: String?
        if let sun = decision.event.sun, let highest = highestSUNCounter?(sun), sun.counter <= highest,
            let replay = Refusal.replay(of: decision.matches)
        {
            (decision.matches, decision.refusal) = (replay.matches, replay.refusal)
            replayNote =
                "sun: replay: counter \(sun.counter) is not above \(highest), the highest accepted for UID \(sun.uid)"
        }
        let event = decision.event
        let matches = decision.matches
        tagName = event.known?.name
        matched = matches.map(\.rule.name)
        actions = []
        actionRules = []
        errors = []
        var events: [LaterEvent] = []
        for match in matches {
            do {
                let rendered = try match.rule.render(event: event, eventID: eventID, time: time, masksSecrets: true)
                actions += rendered
                actionRules += Array(repeating: match.rule.name, count: rendered.count)
                for kind in PresentationEventKind.later {
                    guard let later = match.rule.on[kind], let timingKey = kind.timingKey else { continue }
                    let context = PresentationContext(kind: kind, presentationID: eventID, presentedFor: .zero)
                    events.append(
                        LaterEvent(
                            rule: match.rule.name, event: kind.rawValue,
                            timing: "\(timingKey) \(DurationText.format(later.timing))",
                            actions: try match.rule.render(
                                event: event, eventID: eventID, time: time, masksSecrets: true,
                                presentation: context)))
                }
            } catch {
                errors.append("rule '\(match.rule.name)': \(error)")
            }
        }
        self.events = events.isEmpty ? nil : events
        if let refusal = decision.refusal {
            do {
                denied = Denied(
                    rule: refusal.rule.name, reason: refusal.reason,
                    actions: try refusal.rule.render(
                        event: event, eventID: eventID, time: time, masksSecrets: true, denial: refusal.reason))
            } catch {
                denied = Denied(rule: refusal.rule.name, reason: refusal.reason, actions: [])
                errors.append("rule '\(refusal.rule.name)': \(error)")
            }
        }
        // The event as given: the decided one shows `<sun>` in place of a verified message, which no rule verifies.
        explain = explaining ? ruleSet.explain(original, at: date) : nil
        if let replayNote, let refusal = decision.refusal,
            let index = explain?.firstIndex(where: { $0.rule == refusal.rule.name })
        {
            explain?[index].verdict = .refused
            explain?[index].denial = .replay
            explain?[index].reason = replayNote
        }
    }

    /// Whether no rule matched (the tag would be ignored, or refused).
    public var isIgnored: Bool { matched.isEmpty }

    /// Whether a door rule would refuse the tag (and no rule decides).
    public var isDenied: Bool { denied != nil }

    /// The human rendering.
    public var text: String {
        var lines: [String] = []
        if let explain {
            lines.append("explain:")
            for item in explain {
                let events = item.events.map { " [on: \($0.joined(separator: ", "))]" } ?? ""
                let verdict = item.denial.map { "refused (\($0.rawValue))" } ?? item.verdict.rawValue
                lines.append("  \(item.rule) (\(item.location)): \(verdict): \(item.reason)\(events)")
            }
        }
        if let tagName { lines.append("tag: '\(PrintableText.line(tagName))' (enrolled)") }
        if let denied {
            lines.append("refused by \(denied.rule): \(denied.reason.rawValue)")
            for action in denied.actions { lines.append("  \(denied.rule) denied: \(Self.describe(action))") }
        }
        if matched.isEmpty {
            if denied == nil { lines.append("no rule matches: the tag would be ignored") }
        } else {
            lines.append("matched: \(matched.joined(separator: ", "))")
            for (rule, action) in zip(actionRules, actions) {
                lines.append("  \(rule): \(Self.describe(action))")
            }
            for later in events ?? [] {
                for action in later.actions {
                    lines.append("  \(later.rule) on \(later.event) (\(later.timing)): \(Self.describe(action))")
                }
            }
        }
        lines += errors.map { "error: \($0)" }
        return lines.joined(separator: "\n")
    }

    /// The JSON rendering: `{"matched": [...], "actions": [...], "explain": [...]}`.
    public var json: String {
        // Strings, numbers and optionals always encode.
        try! JSONOutput.string(self)
    }

    /// One action in one line.
    static func describe(_ action: RenderedAction) -> String {
        func quote(_ text: String) -> String { "\"" + PrintableText.json(text) + "\"" }
        switch action {
        case .open(let uri):
            return "open \(quote(uri))"
        case .type(let text):
            return "type \(quote(text))"
        case .run(let argv, let environment, let cwd, let timeout):
            let extra = environment.keys.filter { !$0.hasPrefix("TAG_") }.sorted()
                .map { " \($0)=\(quote(environment[$0]!))" }.joined()
            let directory = cwd.map { " cwd \(quote($0))" } ?? ""
            return
                "run [\(argv.map(quote).joined(separator: ", "))]\(extra)\(directory) timeout \(DurationText.format(timeout))"
        case .webhook(let webhook):
            var text = "webhook \(webhook.method) \(URLRedaction.redacted(webhook.url))"
            for header in webhook.headers {
                text += "\n      \(header.name): \(URLRedaction.shownValue(ofHeader: header.name, header.value))"
            }
            text += "\n      body: \(webhook.body ?? "(the event document)")"
            if webhook.secret != nil { text += "\n      signed (HMAC-SHA256; the secret is not shown)" }
            return text
        case .mqtt(let mqtt):
            var text = "mqtt \(mqtt.topic) qos \(mqtt.qos)\(mqtt.retain ? " retained" : "")"
            if mqtt.qos > 0 { text += " retry for \(DurationText.format(mqtt.retryFor))" }
            text += "\n      payload: \(mqtt.payload ?? "(the event document)")"
            return text
        }
    }
}
