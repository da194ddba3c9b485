public import Foundation
import JSONOutput
import StateStore
import TagActions
import TagRules

/// One decision on a door reader, as the decision stream publishes it (docs/operations.md, "The decision
/// stream"): accepted, denied with its reason, or ignored (no rule matched).
public struct DoorDecision: Sendable, Hashable, Encodable {
    /// What was decided.
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// A rule matched and its actions were carried out.
        case accepted
        /// A door rule refused the tag (``DoorDecision/reason`` says why).
        case denied
        /// No rule matched and no door rule refused.
        case ignored
    }

    /// What was decided.
    public var decision: Kind
    /// When.
    public var time: Date
    /// The reader.
    public var reader: String
    /// The tag's UID, if it has one.
    public var uid: String?
    /// The tag's enrolled name, if it is enrolled.
    public var tagName: String?
    /// The rule (or rules, comma-separated) that matched, or the rule that refused.
    public var rule: String?
    /// Why, for a refusal.
    public var reason: String?
    /// The event id of the tap's actions; a new one for an ignored tap.
    public var eventID: String

    /// The decision of a tap's outcome; nil for what is not a decision (a failed read, a cooldown, a later event
    /// of a presentation, a reader held by `tagrouter learn`).
    /// - Parameter outcome: how the tap ended.
    public init?(_ outcome: TapOutcome) {
        switch outcome {
        case .dispatched(let tag, let dispatch) where dispatch.event == .tap:
            self.init(.accepted, tag, time: dispatch.time, eventID: dispatch.eventID)
            rule = dispatch.rules.map(\.rule).joined(separator: ",")
        case .denied(let tag, let rule, let reason, let dispatch):
            self.init(.denied, tag, time: dispatch.time, eventID: dispatch.eventID)
            self.rule = rule
            self.reason = reason.rawValue
        case .ignored(let tag):
            let time = Date()
            self.init(.ignored, tag, time: time, eventID: EventID.make(at: time))
        default:
            return nil
        }
    }

    private init(_ decision: Kind, _ tag: TagSummary, time: Date, eventID: String) {
        self.decision = decision
        self.time = time
        self.reader = tag.reader
        self.uid = tag.uid
        self.tagName = tag.name
        self.eventID = eventID
    }

    enum CodingKeys: String, CodingKey {
        case decision, time, reader, uid, tagName, rule, reason
        case eventID = "eventId"
    }

    /// Encodes `time` as RFC 3339 and leaves out absent values.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(decision, forKey: .decision)
        try container.encode(Timestamp.rfc3339(time), forKey: .time)
        try container.encode(reader, forKey: .reader)
        try container.encodeIfPresent(uid, forKey: .uid)
        try container.encodeIfPresent(tagName, forKey: .tagName)
        try container.encodeIfPresent(rule, forKey: .rule)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encode(eventID, forKey: .eventID)
    }

    /// The payload: one JSON object in the one JSON style (`JSONOutput`).
    public func json() -> [UInt8] {
        // Strings only: encoding cannot fail.
        Array(try! JSONOutput.data(self))
    }
}

/// Where the router sends its door decisions (docs/operations.md, "The decision stream"): `tagrouter run` publishes
/// them through the MQTT outbox when the `mqtt:` block has `decisions: true`; tests record them.
public struct DecisionSink: Sendable {
    /// Whether decisions on this reader are wanted now (a door rule may decide there, and the stream is on).
    public var wants: @Sendable (_ reader: String) -> Bool
    /// Takes one decision.
    public var publish: @Sendable (DoorDecision) -> Void

    /// Creates a sink.
    /// - Parameters:
    ///   - wants: whether decisions on a reader are wanted now.
    ///   - publish: takes one decision.
    public init(
        wants: @escaping @Sendable (_ reader: String) -> Bool, publish: @escaping @Sendable (DoorDecision) -> Void
    ) {
        self.wants = wants
        self.publish = publish
    }
}
