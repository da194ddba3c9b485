/// A placeholder of the rule language: `{uri}`, `{query.NAME}`… (docs/rules.md, "Placeholders").
public enum Placeholder: Sendable, Hashable {
    case uri, scheme, host, path, query, fragment, uid, reader, tech, rule, text, eventID, time
    /// `{query.NAME}`: the first value of query item NAME, percent-decoded.
    case queryItem(String)
    /// `{ha_tag_id}`: the Home Assistant tag id (an extension, docs/rules.md, "Placeholders").
    case homeAssistantTagID
    /// `{event}`: `tap`, `removed`, `held` or `returned` (docs/rules.md, "Tags that stay on the reader").
    case event
    /// `{presentation_id}`: the id every event of one presentation shares (its tap's event id).
    case presentationID
    /// `{presented_for_ms}`: how long the tag had been on the reader at the event, in milliseconds.
    case presentedForMilliseconds
    /// `{tag.name}`: the enrolled tag's name; empty when the tag is not enrolled (docs/doors.md, "Doors").
    case tagName
    /// `{tag.groups}`: the enrolled tag's groups, comma-separated.
    case tagGroups
    /// `{denied.reason}`: why a door rule refused the tag, in its `denied:` actions.
    case deniedReason
    /// `{sun.uid}`, `{sun.counter}`, `{sun.file}`: the verified SUN message (docs/doors.md, "SUN").
    case sunUID, sunCounter, sunFile

    /// The simple placeholders by name.
    static let byName: [String: Placeholder] = [
        "uri": .uri, "scheme": .scheme, "host": .host, "path": .path, "query": .query, "fragment": .fragment,
        "uid": .uid, "reader": .reader, "tech": .tech, "rule": .rule, "text": .text, "event_id": .eventID,
        "time": .time, "ha_tag_id": .homeAssistantTagID, "event": .event, "presentation_id": .presentationID,
        "presented_for_ms": .presentedForMilliseconds, "tag.name": .tagName, "tag.groups": .tagGroups,
        "denied.reason": .deniedReason, "sun.uid": .sunUID, "sun.counter": .sunCounter, "sun.file": .sunFile,
    ]

    /// The placeholder named `name` (without braces), or nil.
    init?(name: String) {
        if name.hasPrefix("query."), name.count > 6 {
            self = .queryItem(String(name.dropFirst(6)))
        } else if let placeholder = Self.byName[name] {
            self = placeholder
        } else {
            return nil
        }
    }

    /// Whether the value comes from what the tag's NDEF message says (its URI's parts, its texts), which anyone
    /// who writes a tag chooses, rather than from the reader, the rule, the event or a verified message.
    var isChosenByTag: Bool {
        switch self {
        case .uri, .scheme, .host, .path, .query, .fragment, .queryItem, .text: true
        default: false
        }
    }

    /// The name as written between braces.
    public var name: String {
        switch self {
        case .queryItem(let item): "query.\(item)"
        case .eventID: "event_id"
        case .homeAssistantTagID: "ha_tag_id"
        case .presentationID: "presentation_id"
        case .presentedForMilliseconds: "presented_for_ms"
        case .tagName: "tag.name"
        case .tagGroups: "tag.groups"
        case .deniedReason: "denied.reason"
        case .sunUID: "sun.uid"
        case .sunCounter: "sun.counter"
        case .sunFile: "sun.file"
        default: Self.byName.first { $0.value == self }?.key ?? ""
        }
    }
}
