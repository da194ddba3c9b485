public import Foundation

/// One tap in the history: which tag, on which reader, what rule matched and what came of it.
public struct TapRecord: Sendable, Hashable, Encodable {
    /// What became of a tap.
    public enum Outcome: String, Sendable, Hashable, Encodable, CaseIterable {
        /// A rule matched and its actions were dispatched.
        case matched
        /// No rule matched.
        case ignored
        /// Suppressed by the cooldown.
        case suppressed
        /// Reading or an action failed.
        case failed
        /// An action was dropped (command queue full).
        case dropped
        /// A door rule refused the tag (``TapRecord/reason`` says why).
        case denied

        /// Whether `tagrouter history --failed` lists it.
        public var isFailure: Bool { self == .failed || self == .dropped }
    }

    /// When the tap happened.
    public var time: Date
    /// The reader name.
    public var reader: String
    /// The tag UID as hex, if any.
    public var uid: String?
    /// The tag's URI, if any.
    public var uri: String?
    /// The matched rule, if any.
    public var rule: String?
    /// What came of it.
    public var outcome: Outcome
    /// A short explanation (an error message), if any.
    public var detail: String?
    /// The event id, if actions ran.
    public var eventID: String?
    /// For a presentation followed by a rule's `on:` block: `tap`, `removed`, `held` or `returned`; `nil` for a
    /// plain tap.
    public var event: String?
    /// The id the events of that presentation share (its tap's event id), linking them to the tap.
    public var presentationID: String?
    /// The tag's enrolled name, if it is enrolled.
    public var tagName: String?
    /// Why a door rule refused the tag (`outside-window`, …), for a `denied` tap.
    public var reason: String?

    /// Creates a tap record.
    /// - Parameters:
    ///   - time: when.
    ///   - reader: the reader name.
    ///   - uid: the UID, if any.
    ///   - uri: the URI, if any.
    ///   - rule: the matched rule, if any.
    ///   - outcome: what came of it.
    ///   - detail: an explanation, if any.
    ///   - eventID: the event id, if any.
    public init(
        time: Date,
        reader: String,
        uid: String? = nil,
        uri: String? = nil,
        rule: String? = nil,
        outcome: Outcome,
        detail: String? = nil,
        eventID: String? = nil
    ) {
        self.time = time
        self.reader = reader
        self.uid = uid
        self.uri = uri
        self.rule = rule
        self.outcome = outcome
        self.detail = detail
        self.eventID = eventID
    }

    enum CodingKeys: String, CodingKey {
        case time, reader, uid, uri, rule, outcome, detail, event, tagName, reason
        case eventID = "eventId"
        case presentationID = "presentationId"
    }

    /// Encodes `time` as RFC 3339.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Timestamp.rfc3339(time), forKey: .time)
        try container.encode(reader, forKey: .reader)
        try container.encodeIfPresent(uid, forKey: .uid)
        try container.encodeIfPresent(uri, forKey: .uri)
        try container.encodeIfPresent(rule, forKey: .rule)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encodeIfPresent(eventID, forKey: .eventID)
        try container.encodeIfPresent(event, forKey: .event)
        try container.encodeIfPresent(presentationID, forKey: .presentationID)
        try container.encodeIfPresent(tagName, forKey: .tagName)
        try container.encodeIfPresent(reason, forKey: .reason)
    }
}
