import WebhookTarget

/// A delivery as `tagrouter history --json` lists it: no body, headers or secret, a webhook's URL redacted, times
/// in RFC 3339.
extension Delivery: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, rule, url, method, state, attempts, lastStatus, lastError, createdAt, nextAttemptAt, finishedAt, kind
        case eventID = "eventId"
    }

    /// The target as history shows it: a webhook's URL redacted (``URLRedaction``), a topic as it is.
    public var shownTarget: String { kind == .webhook ? URLRedaction.redacted(target) : target }

    /// Encodes the history fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(eventID, forKey: .eventID)
        try container.encode(rule, forKey: .rule)
        try container.encode(shownTarget, forKey: .url)
        try container.encode(method.rawValue, forKey: .method)
        try container.encode(state.rawValue, forKey: .state)
        try container.encode(attempts, forKey: .attempts)
        try container.encodeIfPresent(lastStatus, forKey: .lastStatus)
        try container.encodeIfPresent(lastError, forKey: .lastError)
        try container.encode(Timestamp.rfc3339(milliseconds: createdAt), forKey: .createdAt)
        if state == .pending {
            try container.encode(Timestamp.rfc3339(milliseconds: nextAttemptAt), forKey: .nextAttemptAt)
        }
        try container.encodeIfPresent(finishedAt.map { Timestamp.rfc3339(milliseconds: $0) }, forKey: .finishedAt)
        try container.encode(kind.rawValue, forKey: .kind)
    }
}
