/// An MQTT publication with every placeholder replaced.
public struct RenderedMQTT: Sendable, Hashable {
    /// The topic (placeholder values cannot add levels or wildcards).
    public var topic: String
    /// The payload; nil means "publish the event document".
    public var payload: String?
    /// The quality of service, 0 or 1.
    public var qos: Int
    /// Whether the broker retains it.
    public var retain: Bool
    /// How long a QoS 1 publication is retried.
    public var retryFor: Duration

    /// Creates a rendered publication.
    /// - Parameters:
    ///   - topic: the topic.
    ///   - payload: the payload, nil for the event document.
    ///   - qos: 0 or 1.
    ///   - retain: whether the broker retains it.
    ///   - retryFor: how long QoS 1 is retried.
    public init(topic: String, payload: String?, qos: Int, retain: Bool, retryFor: Duration) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.retryFor = retryFor
    }
}
