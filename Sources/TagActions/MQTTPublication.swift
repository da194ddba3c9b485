public import Foundation
public import StateStore
public import TagRules

/// An `mqtt` action after its placeholders were rendered: one message for the broker (docs/rules.md,
/// "`mqtt`: publications"). QoS 1 publications go through the outbox and are delivered at least once.
public struct MQTTPublication: Sendable, Hashable {
    /// The topic.
    public var topic: String
    /// The payload bytes (the event document unless the rule has its own payload).
    public var payload: [UInt8]
    /// 0 (fire and forget) or 1 (stored, at least once).
    public var qos: Int
    /// Whether the broker retains it.
    public var retain: Bool
    /// How long a QoS 1 publication is retried before it is kept as failed.
    public var retryFor: Duration
    /// The event id (the payload carries it too, so a receiver can drop duplicates).
    public var eventID: String
    /// The rule that produced it.
    public var rule: String

    /// Creates a publication.
    /// - Parameters:
    ///   - topic: the topic.
    ///   - payload: the payload.
    ///   - qos: 0 or 1.
    ///   - retain: whether the broker retains it.
    ///   - retryFor: how long QoS 1 is retried (default 24 h).
    ///   - eventID: the event id.
    ///   - rule: the rule name.
    public init(
        topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false, retryFor: Duration = .seconds(86_400),
        eventID: String, rule: String
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.retryFor = retryFor
        self.eventID = eventID
        self.rule = rule
    }

    /// Builds the publication of a rendered action.
    /// - Parameters:
    ///   - rendered: the rendered action.
    ///   - rule: the matched rule's name.
    ///   - document: the event document, the payload when the rule gives none.
    public init(_ rendered: RenderedMQTT, rule: String, document: EventDocument) {
        self.init(
            topic: rendered.topic, payload: rendered.payload.map { Array($0.utf8) } ?? document.jsonBytes(),
            qos: rendered.qos, retain: rendered.retain, retryFor: rendered.retryFor, eventID: document.id, rule: rule)
    }

    /// Checks what the broker would refuse: a topic with a wildcard, NUL, a leading `/` or over 64 KiB, a QoS
    /// other than 0 or 1, a payload over 256 MiB.
    /// - Throws: ``ActionError`` (`invalidRequest`) naming the topic.
    public func validate() throws {
        if let problem = MQTTTopic.problem(in: topic) {
            throw ActionError(.invalidRequest, "mqtt topic '\(topic)' \(problem)")
        }
        guard qos == 0 || qos == 1 else {
            throw ActionError(.invalidRequest, "mqtt publication to '\(topic)': qos \(qos) is not 0 or 1")
        }
        guard payload.count < 268_435_455 else {
            throw ActionError(.invalidRequest, "mqtt publication to '\(topic)': the payload is over 256 MiB")
        }
    }

    /// The delivery the outbox stores for this publication (QoS 1), validated.
    /// - Parameter now: the acceptance time.
    /// - Returns: a pending delivery.
    /// - Throws: ``ActionError`` (`invalidRequest`).
    public func delivery(now: Date) throws -> Delivery {
        try validate()
        var delivery = Delivery(
            kind: .mqtt, eventID: eventID, rule: rule, target: topic, method: .mqtt, createdAt: now, retryFor: retryFor)
        delivery.body = payload
        delivery.qos = qos
        delivery.retain = retain
        return delivery
    }
}
