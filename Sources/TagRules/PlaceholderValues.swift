import AASAPatterns

/// The values placeholders stand for, for one tag event and one rule.
public struct PlaceholderValues: Sendable {
    private let event: TagEvent
    private let uri: ParsedURI?
    /// The rule's name, `{rule}`.
    public var rule: String
    /// The event id, `{event_id}`.
    public var eventID: String
    /// The event time in RFC 3339 UTC, `{time}`.
    public var time: String
    /// Which event of its presentation this is, `{event}`, `{presentation_id}` and `{presented_for_ms}`; `nil`
    /// for a tap with no presentation recorded (`match`): a `tap` whose presentation id is its event id.
    public var presentation: PresentationContext?
    /// Why a door rule refused the tag, `{denied.reason}`; nil for anything but a refusal's actions.
    public var denial: DenialReason?

    /// Collects the values for an event.
    /// - Parameters:
    ///   - event: the tag event.
    ///   - rule: the matched rule's name.
    ///   - eventID: the event id (a UUID).
    ///   - time: the event time as RFC 3339 UTC text (`2026-11-22T12:00:00.123Z`).
    public init(event: TagEvent, rule: String, eventID: String, time: String) {
        self.event = event
        self.uri = event.uri.flatMap(ParsedURI.init)
        self.rule = rule
        self.eventID = eventID
        self.time = time
    }

    /// The value of one placeholder; an absent value is the empty string.
    public subscript(placeholder: Placeholder) -> String {
        switch placeholder {
        case .uri: return event.uri ?? ""
        case .scheme: return uri?.scheme ?? ""
        case .host: return uri?.host.map(String.init) ?? ""
        case .path: return uri.map { $0.text($0.path) } ?? ""
        case .query: return uri?.query.map { uri!.text($0) } ?? ""
        case .fragment: return uri?.fragment.map { uri!.text($0) } ?? ""
        case .queryItem(let name): return queryItem(name) ?? ""
        case .uid: return event.uid ?? ""
        case .reader: return event.reader
        case .tech: return event.tech
        case .rule: return rule
        case .text: return event.texts.first ?? ""
        case .eventID: return eventID
        case .time: return time
        case .homeAssistantTagID: return homeAssistantTagID
        case .event:
            return denial != nil ? PresentationEventKind.denied.rawValue : (presentation?.kind ?? .tap).rawValue
        case .presentationID: return presentation?.presentationID ?? eventID
        case .presentedForMilliseconds: return String(presentation?.presentedForMilliseconds ?? 0)
        case .tagName: return event.known?.name ?? ""
        case .tagGroups: return event.known?.groups.joined(separator: ",") ?? ""
        case .deniedReason: return denial?.rawValue ?? ""
        case .sunUID: return event.sun?.uid ?? ""
        case .sunCounter: return event.sun.map { String($0.counter) } ?? ""
        case .sunFile: return event.sun?.fileText ?? ""
        }
    }

    /// The first value of query item `name`, percent-decoded.
    private func queryItem(_ name: String) -> String? {
        guard let uri, let query = uri.query else { return nil }
        for item in Array(uri.text(query).utf8).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = item.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let itemName = String(decoding: URIText.percentDecoded(parts[0]), as: UTF8.self)
            if itemName == name {
                return parts.count > 1 ? String(decoding: URIText.percentDecoded(parts[1]), as: UTF8.self) : ""
            }
        }
        return nil
    }

    /// Home Assistant's tag id: the `<id>` of `https://www.home-assistant.io/tag/<id>`, otherwise the UID as
    /// upper-case hex bytes separated by `-` (ESPHome's convention), otherwise empty.
    private var homeAssistantTagID: String {
        let prefix = "https://www.home-assistant.io/tag/"
        if let text = event.uri, text.lowercased().hasPrefix(prefix), let uri {
            let path = String(decoding: URIText.percentDecoded(Array(uri.text(uri.path).utf8)), as: UTF8.self)
            let id = path.dropFirst("/tag/".count)
            if !id.isEmpty { return String(id) }
        }
        guard let uid = event.uid else { return "" }
        var pairs: [String] = []
        var index = uid.startIndex
        while index < uid.endIndex {
            let next = uid.index(index, offsetBy: 2, limitedBy: uid.endIndex) ?? uid.endIndex
            pairs.append(uid[index..<next].uppercased())
            index = next
        }
        return pairs.joined(separator: "-")
    }
}
