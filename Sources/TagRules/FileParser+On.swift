import Yams

extension FileParser {
    /// Parses a rule's `on:` block (docs/rules.md, "Tags that stay on the reader"): each event a mapping with its
    /// timing and the action keys a rule has. Every mistake is reported at its line and column.
    func parseOn(_ node: Node, context: String) -> PresentationEvents {
        var events = PresentationEvents()
        guard let mapping = mapping(node, "'on'") else { return events }
        let names = PresentationEventKind.later.map(\.rawValue)
        let items = entries(mapping, allowed: names, context: "in 'on' \(context)")
        if mapping.isEmpty { error(node, "'on' is empty \(context) (give 'removed', 'held' or 'returned')") }
        for item in items {
            // `entries` lets only the later events' names through.
            guard let kind = PresentationEventKind(rawValue: item.key), let timingKey = kind.timingKey else { continue }
            events[kind] = parseEvent(kind, timingKey: timingKey, item.value, context: context)
        }
        return events
    }

    private func parseEvent(_ kind: PresentationEventKind, timingKey: String, _ node: Node, context: String)
        -> PresentationEvents.Event?
    {
        let name = kind.rawValue
        guard let mapping = mapping(node, "'\(name)'") else { return nil }
        let actionKeys = ["run", "open", "webhook", "mqtt", "type", "actions"]
        let items = entries(mapping, allowed: [timingKey] + actionKeys, context: "in '\(name)' \(context)")
        var timing: Duration? = kind == .removed ? .seconds(1) : nil
        var actions: [Action] = []
        var hasAction = false
        for item in items {
            switch item.key {
            case timingKey:
                guard let value = duration(item.value, "'\(timingKey)'") else { return nil }
                if value <= .zero {
                    error(item.value, "'\(timingKey)' of '\(name)' must be longer than 0s \(context)")
                    return nil
                }
                timing = value
            case "actions":
                hasAction = true
                actions += parseActionList(item.value, context: context)
            default:
                hasAction = true
                if let action = parseAction(item.key, item.value, context: context) { actions.append(action) }
            }
        }
        guard hasAction else {
            error(node, "'\(name)' has no action \(context) (add 'run', 'open', 'webhook', 'mqtt' or 'actions')")
            return nil
        }
        guard let timing else {
            error(node, "'\(name)' has no '\(timingKey)' \(context) (write \(timingKey): 2s)")
            return nil
        }
        return PresentationEvents.Event(timing: timing, actions: actions, location: location(node))
    }
}
