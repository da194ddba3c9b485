import AASAPatterns
public import Foundation
public import ReaderFeedback
import SUNMessage

/// One validated rule: its conditions, its actions and how it takes part in evaluation.
public struct Rule: Sendable {
    /// The rule's unique name.
    public var name: String
    /// Where the rule is written.
    public var location: SourceLocation
    /// The actions, in order.
    public var actions: [Action]
    /// Whether evaluation goes on to later rules after this one matched (`continue: true`).
    public var continues: Bool
    /// The cooldown for the same tag on the same reader.
    public var cooldown: Duration
    /// The later events of a presentation the rule reacts to (`on:`); empty for most rules.
    public var on: PresentationEvents
    /// The actions of a refusal (`denied:`, docs/doors.md, "Refusals"); nil when the rule has none.
    public var denied: [Action]?
    /// When the rule's `open` actions ask the desktop first (`confirm:`, docs/rules.md, "Confirmation before
    /// open").
    public var confirm: OpenConfirmation = .untrusted
    /// The rule's `feedback:`: the signals that replace its reader's for the taps it decides (docs/rules.md,
    /// "`readers:`: what the reader shows"); nil when it has none.
    public var feedback: FeedbackPlan?
    /// The rule's `lockout:` (docs/doors.md, "Lockout"); nil when it has none.
    public var lockout: Lockout?
    /// The compiled conditions, behind one reference so that evaluating a candidate retains one object, not each
    /// of the conditions' arrays.
    private(set) var matcher: Matcher

    /// The URI schemes the rule's `match` lets through, lower-cased: its `schemes`, or `http` and `https` for a
    /// rule with `domains` (or a live `aasa`) and no `schemes`; nil when the rule matches tags whatever their
    /// scheme (by UID, reader, MIME type, text, `any`…). An `open` action of such a rule should open only
    /// `http` and `https` URIs and these schemes (docs/rules.md, "What a tag may choose").
    public var allowedSchemes: Set<String>? { matcher.conditions.allowedSchemes }

    /// The conditions.
    var conditions: MatchConditions { matcher.conditions }

    /// Whether the rule's refusals are recorded: it has `tags`, `when`, `sun` or `denied` (docs/rules.md,
    /// "Refusals").
    public var isDoor: Bool { matcher.conditions.isDoor }

    /// Whether the rule requires a verified SUN message (`sun`), whose counter the router checks for replays.
    public var requiresSUN: Bool { matcher.conditions.sun != nil }

    /// Whether a tag this rule admitted is trusted to open a link without asking: what admitted it is something the
    /// tag cannot forge or the owner declared (docs/rules.md, "Confirmation before open"): a live association file
    /// in force for the domain, a verified SUN message whose MAC covers the URL, or UIDs the rule lists (`uid`, or
    /// enrolled `tags`). A `sun` whose MAC does not cover the URL (`macInput: none` or `fileData`) is never
    /// trusted: the URL around the message is the tag's choice. Trust is read off the outcome: a tag the rule
    /// refused is never trusted (``asksBeforeOpening(_:denial:)``).
    /// - Parameter event: the tag event the rule matched.
    public func trusts(_ event: TagEvent) -> Bool {
        let conditions = matcher.conditions
        if let sun = conditions.sun {
            return sun.macInput.coversURL && event.sun != nil
        }
        if conditions.live != nil, conditions.unavailable == nil { return true }
        return conditions.uids != nil || conditions.tags != nil
    }

    /// Whether the rule's `open` asks the desktop first: `always`, or `untrusted` for a tag it does not trust, and
    /// for every tag it refused (its `denied:` actions: the tag proved nothing).
    /// - Parameters:
    ///   - event: the tag event.
    ///   - denial: why the rule refused the tag, when the `open` is one of its `denied:` actions.
    public func asksBeforeOpening(_ event: TagEvent, denial: DenialReason? = nil) -> Bool {
        switch confirm {
        case .always: true
        case .never: false
        case .untrusted: denial != nil || !trusts(event)
        }
    }

    /// The zone of the rule's `when` and of the validity days of the tags it lists.
    public var timeZone: TimeZone { matcher.conditions.timeZone }

    /// Replaces the conditions (a live association file's components arrived).
    mutating func setConditions(_ conditions: MatchConditions) {
        matcher = Matcher(conditions)
    }

    /// A reference holder for the conditions (immutable, hence Sendable).
    final class Matcher: Sendable {
        let conditions: MatchConditions

        init(_ conditions: MatchConditions) {
            self.conditions = conditions
        }
    }

    init(
        name: String, location: SourceLocation, actions: [Action], continues: Bool, cooldown: Duration,
        conditions: MatchConditions, on: PresentationEvents = PresentationEvents(), denied: [Action]? = nil
    ) {
        self.name = name
        self.location = location
        self.actions = actions
        self.continues = continues
        self.cooldown = cooldown
        self.on = on
        self.denied = denied
        self.matcher = Matcher(conditions)
    }

    /// Replaces every action of the rule, its `on:` events' included.
    /// - Parameter transform: the new action for each.
    mutating func mapActions(_ transform: (Action) -> Action) {
        actions = actions.map(transform)
        denied = denied?.map(transform)
        for kind in PresentationEventKind.later {
            guard var event = on[kind] else { continue }
            event.actions = event.actions.map(transform)
            on[kind] = event
        }
    }

    /// The actions the rule carries out for an event of its presentations: its own for the tap, its `on:`
    /// block's for the others (none when it has no such event).
    /// - Parameter kind: the event.
    public func actions(for kind: PresentationEventKind) -> [Action] {
        kind == .tap ? actions : on[kind]?.actions ?? []
    }

    /// Whether the rule matches the event (ignoring order and fan-out).
    /// - Parameters:
    ///   - event: the tag event (its ``TagEvent/known`` entry, if any, is what `tags` looks at).
    /// - Returns: whether all its conditions hold.
    ///   - date: when (for `when` and the validity of enrolled tags); now by default.
    public func matches(_ event: TagEvent, at date: Date = Date()) -> Bool {
        var subject = event.uri.flatMap(ParsedURI.init).map(MatchSubject.init)
        return matcher.conditions.evaluate(event, &subject, at: date, explaining: false).matched
    }

    /// Renders every action of the rule for an event.
    /// - Parameters:
    ///   - event: the tag event.
    ///   - eventID: the event id, for `{event_id}`.
    ///   - time: the event time as RFC 3339 text (the event document's `time`), for `{time}`.
    ///   - masksSecrets: show `${NAME}` instead of environment values (for human output).
    ///   - presentation: the event of the presentation (the rule's `on:` actions for any but `tap`); `nil` is the
    ///     tap.
    ///   - denial: the reason of a refusal: the rule's `denied:` actions, with `{denied.reason}`.
    /// - Returns: the rendered actions, in order.
    /// - Throws: ``TagRulesError`` when a placeholder value would inject a line break into a header.
    public func render(
        event: TagEvent, eventID: String, time: String, masksSecrets: Bool = false,
        presentation: PresentationContext? = nil, denial: DenialReason? = nil
    ) throws -> [RenderedAction] {
        var values = PlaceholderValues(event: event, rule: name, eventID: eventID, time: time)
        values.presentation = presentation
        values.denial = denial
        let written = denial == nil ? actions(for: presentation?.kind ?? .tap) : denied ?? []
        return try written.map { action in
            switch action {
            case .open(let template):
                return .open(uri: try template.render(values, escaping: .plain, masksSecrets: masksSecrets))
            case .type(let template):
                return .type(text: try template.render(values, escaping: .keystrokes, masksSecrets: masksSecrets))
            case .run(let run):
                var environment = Self.eventEnvironment(values)
                for entry in run.environment {
                    environment[entry.name] = try entry.value.render(
                        values, escaping: .plain, masksSecrets: masksSecrets)
                }
                return .run(
                    argv: try run.argv.map { try $0.render(values, escaping: .plain, masksSecrets: masksSecrets) },
                    environment: environment, cwd: run.cwd, timeout: run.timeout)
            case .webhook(let webhook):
                return .webhook(
                    RenderedWebhook(
                        url: try webhook.url.render(values, escaping: .url, masksSecrets: masksSecrets),
                        method: webhook.method,
                        headers: try webhook.headers.map {
                            HeaderField(
                                name: $0.name,
                                value: try $0.value.render(values, escaping: .header, masksSecrets: masksSecrets))
                        },
                        body: try webhook.body?.render(
                            values, escaping: webhook.bodyIsJSON ? .json : .plain, masksSecrets: masksSecrets),
                        secret: try webhook.secret?.render(values, escaping: .plain, masksSecrets: masksSecrets),
                        timeout: webhook.timeout, retryFor: webhook.retryFor,
                        transport: webhook.transport))
            case .mqtt(let mqtt):
                return .mqtt(
                    RenderedMQTT(
                        topic: try mqtt.topic?.render(values, escaping: .topic, masksSecrets: masksSecrets)
                            ?? MQTTTopic.tagTopic(prefix: mqtt.topicPrefix, reader: values[.reader]),
                        payload: try mqtt.payload?.render(
                            values, escaping: mqtt.payloadIsJSON ? .json : .plain, masksSecrets: masksSecrets),
                        qos: mqtt.qos, retain: mqtt.retain, retryFor: mqtt.retryFor))
            }
        }
    }

    /// The `TAG_*` variables every command gets (docs/rules.md, "`run`: commands"); `TAG_EVENT_JSON` is added by
    /// TagActions. A value holding a NUL byte (possible in a stranger's Text record) cannot pass execve: it is
    /// set to the empty string, so that such a tag never stops the command of a rule that matched it.
    static func eventEnvironment(_ values: PlaceholderValues) -> [String: String] {
        let variables = [
            "TAG_URI": values[.uri], "TAG_UID": values[.uid], "TAG_READER": values[.reader],
            "TAG_TECH": values[.tech], "TAG_RULE": values[.rule], "TAG_EVENT_ID": values[.eventID],
            "TAG_TEXT": values[.text], "TAG_EVENT": values[.event], "TAG_PRESENTATION_ID": values[.presentationID],
            "TAG_PRESENTED_FOR_MS": values[.presentedForMilliseconds], "TAG_NAME": values[.tagName],
            "TAG_GROUPS": values[.tagGroups], "TAG_DENIED_REASON": values[.deniedReason],
            "TAG_SUN_UID": values[.sunUID], "TAG_SUN_COUNTER": values[.sunCounter], "TAG_SUN_FILE": values[.sunFile],
        ]
        return variables.mapValues { $0.utf8.contains(0) ? "" : $0 }
    }
}

/// When a rule's `open` asks the desktop first (`confirm:`).
public enum OpenConfirmation: String, Sendable, Hashable, CaseIterable {
    /// Every time.
    case always
    /// When the tag is not trusted (the default): see ``Rule/trusts(_:)``.
    case untrusted
    /// Never.
    case never
}
