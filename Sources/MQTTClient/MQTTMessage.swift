/// One application message: a topic, its payload and how it is delivered.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic name (no wildcards).
    public var topic: String
    /// The payload bytes.
    public var payload: [UInt8]
    /// The quality of service, 0 or 1.
    public var qos: Int
    /// Whether the broker keeps it as the topic's last known value.
    public var retain: Bool

    /// Creates a message.
    /// - Parameters:
    ///   - topic: the topic name.
    ///   - payload: the payload bytes.
    ///   - qos: 0 (at most once) or 1 (at least once).
    ///   - retain: whether the broker retains it.
    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// Creates a message with a text payload.
    /// - Parameters:
    ///   - topic: the topic name.
    ///   - text: the payload as UTF-8 text.
    ///   - qos: 0 or 1.
    ///   - retain: whether the broker retains it.
    public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }
}
