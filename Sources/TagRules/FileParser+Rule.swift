import AASAPatterns
import Foundation
import ReaderFeedback
import SUNMessage
import Yams

extension FileParser {
    static let ruleKeys = [
        "name", "description", "match", "run", "open", "webhook", "type", "actions", "continue", "cooldown",
        "caseSensitive",
        "percentEncoded", "mqtt", "on", "when", "timeZone", "denied", "confirm", "feedback", "lockout",
    ]

    /// Parses one rule; nil (after diagnostics) if it is invalid.
    func parseRule(_ node: Node) -> Rule? {
        guard let mapping = mapping(node, "a rule") else { return nil }
        let errorsBefore = diagnostics.count { $0.severity == .error }
        let nameNode = mapping["name"]
        let rawName = nameNode?.scalar?.string
        let context = rawName.map { "in rule '\($0)'" } ?? "in rule #\(ruleCount)"
        let items = entries(mapping, allowed: Self.ruleKeys, context: context)
        var name = ""
        if let nameNode {
            if let (value, _) = string(nameNode, "a rule name") {
                name = value
                if value.isEmpty
                    || !value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
                {
                    error(nameNode, "rule name '\(value)' may only contain letters, digits, '.', '_' and '-'")
                } else if let first = knownNames[value] {
                    error(nameNode, "duplicate rule name '\(value)' (first defined at \(first))")
                } else {
                    knownNames[value] = location(nameNode)
                }
            }
        } else {
            error(node, "rule #\(ruleCount) has no 'name'")
        }
        var caseSensitive = defaultCaseSensitive
        var percentEncoded = defaultPercentEncoded
        for item in items {
            if item.key == "caseSensitive" { caseSensitive = bool(item.value, "'caseSensitive'") ?? caseSensitive }
            if item.key == "percentEncoded" { percentEncoded = bool(item.value, "'percentEncoded'") ?? percentEncoded }
        }
        var conditions: MatchConditions?
        var actions: [Action] = []
        openSites = []
        typeSites = []
        partialSUN = nil
        var continues = false
        var cooldown = defaultCooldown
        var on = PresentationEvents()
        var windows: [TimeWindow]?
        var timeZone: TimeZone?
        var denied: [Action]?
        var confirm = OpenConfirmation.untrusted
        var feedback: FeedbackPlan?
        var lockout: Lockout?
        for item in items {
            switch item.key {
            case "match":
                conditions = parseMatch(
                    item.value, keyNode: item.keyNode, context: context,
                    mode: MatchSubject.Mode(percentEncoded: percentEncoded, caseSensitive: caseSensitive))
            case "run", "open", "webhook", "mqtt", "type":
                if let action = parseAction(item.key, item.value, context: context) { actions.append(action) }
            case "actions":
                actions += parseActionList(item.value, context: context)
            case "continue":
                continues = bool(item.value, "'continue'") ?? false
            case "cooldown":
                cooldown = duration(item.value, "'cooldown'") ?? cooldown
            case "description":
                _ = string(item.value, "'description'")
            case "on":
                on = parseOn(item.value, context: context)
            case "when":
                windows = parseWhen(item.value, context: context)
            case "timeZone":
                timeZone = parseTimeZone(item.value)
            case "denied":
                denied = parseDenied(item.value, context: context)
            case "lockout":
                lockout = parseLockout(item.value, context: context)
            case "confirm":
                if let (text, display) = string(item.value, "'confirm'") {
                    if let value = OpenConfirmation(rawValue: text) {
                        confirm = value
                    } else {
                        error(item.value, "'confirm' is always, untrusted or never, not '\(display)' \(context)")
                    }
                }
            case "feedback":
                feedback = parseFeedback(item.value, context: context)
            default:
                break
            }
        }
        if mapping["match"] == nil { error(node, "rule '\(name)' has no 'match'") }
        let hasActionKey = items.contains { ["run", "open", "webhook", "mqtt", "type", "actions"].contains($0.key) }
        if !hasActionKey {
            error(node, "rule '\(name)' has no action (add 'run', 'open', 'webhook', 'mqtt' or 'actions')")
        }
        let isDoor = conditions.map { $0.tags != nil || $0.sun != nil } == true || windows != nil || denied != nil
        if let lockoutItem = items.first(where: { $0.key == "lockout" }), conditions != nil, !isDoor {
            error(
                lockoutItem.keyNode,
                "'lockout' needs a door rule, one that refuses tags ('tags', 'when', 'sun' or 'denied') \(context)")
        }
        let errorsAfter = diagnostics.count { $0.severity == .error }
        guard errorsAfter == errorsBefore, var conditions else { return nil }
        if conditions.allowedSchemes == nil {
            for site in openSites where !Self.hasLiteralScheme(site.uri) {
                warning(
                    site.node,
                    "'open' takes the URI's scheme from the tag and the rule's match allows any scheme: the tag "
                        + "chooses the program that opens it (add 'schemes' or 'domains' to 'match')")
            }
        }
        let trustsTheTag =
            conditions.uids != nil || conditions.tags != nil || conditions.live != nil
            || conditions.sun.map(\.macInput.coversURL) == true
        if !trustsTheTag {
            for site in typeSites {
                let chosen = site.text.segments.compactMap { segment -> String? in
                    guard case .placeholder(let placeholder) = segment, [.text, .uri].contains(placeholder) else {
                        return nil
                    }
                    return "{\(placeholder.name)}"
                }
                guard let first = chosen.first else { continue }
                warning(
                    site.node,
                    "'type' types \(first), which any tag the rule matches chooses: a stranger's tag types into "
                        + "your desktop (match by 'uid', 'tags' or a 'sun' that covers the URL)")
            }
        }
        conditions.live?.rule = name
        conditions.calendar = .wallClock(in: timeZone ?? defaultTimeZone ?? .current)
        conditions.schedule = windows.map { Schedule(windows: $0, calendar: conditions.calendar) }
        conditions.isDoor = isDoor
        if let zoneItem = items.first(where: { $0.key == "timeZone" }), windows == nil, conditions.tags == nil {
            warning(zoneItem.keyNode, "'timeZone' has no effect without 'when' or 'tags' \(context)")
        }
        if let partialSUN {
            warnAboutTagChosenPlaceholders(
                actions + (denied ?? []) + on.kinds.flatMap { on[$0]?.actions ?? [] }, partialSUN)
        }
        if let confirmItem = items.first(where: { $0.key == "confirm" }), openSites.isEmpty {
            warning(confirmItem.keyNode, "'confirm' has no effect without an 'open' action \(context)")
        }
        var rule = Rule(
            name: name, location: location(nameNode ?? node), actions: actions, continues: continues,
            cooldown: cooldown, conditions: conditions, on: on, denied: denied)
        rule.confirm = confirm
        rule.feedback = feedback
        rule.lockout = lockout
        return rule
    }

    /// A `sun` whose MAC does not cover the URL proves the UID and the counter only: every placeholder of the
    /// rule's actions that the tag chooses gets a warning (docs/doors.md, "What a SUN message proves").
    private func warnAboutTagChosenPlaceholders(_ actions: [Action], _ sun: (node: Node, mode: String)) {
        var warned: Set<String> = []
        for placeholder in actions.flatMap(\.templates).flatMap(\.placeholders) where placeholder.isChosenByTag {
            guard warned.insert(placeholder.name).inserted else { continue }
            warning(
                sun.node,
                "'{\(placeholder.name)}' is the tag's choice: with 'macInput: \(sun.mode)' the SUN MAC proves the "
                    + "UID and the counter, not the URL (use {sun.uid}, {sun.counter}, or a tag whose MAC covers "
                    + "the URL, as 'tagrouter write --sun' provisions it)")
        }
    }

    /// Whether a template's scheme is written in the rule (its fixed text starts with `scheme:`), not taken from
    /// the tag.
    static func hasLiteralScheme(_ uri: Template) -> Bool {
        if uri.isStatic { return true }
        guard let colon = uri.staticPrefix.firstIndex(of: ":") else { return false }
        let scheme = uri.staticPrefix[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}
