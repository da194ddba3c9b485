/// An `mqtt` action: publish to the rule set's broker (docs/rules.md, "`mqtt`: publications").
public struct MQTTAction: Sendable, Hashable {
    /// The topic; nil means `<topicPrefix>/<reader-id>/tag`.
    public var topic: Template?
    /// The payload; nil means the event document.
    public var payload: Template?
    /// Whether the payload is JSON (its fixed text starts with `{` or `[`): placeholders are JSON-escaped.
    public var payloadIsJSON: Bool
    /// The quality of service, 0 or 1.
    public var qos: Int
    /// Whether the broker retains the message.
    public var retain: Bool
    /// How long a QoS 1 publication is retried before it is kept as failed.
    public var retryFor: Duration
    /// The broker's topic prefix, filled in when the rule set is loaded (the `mqtt:` block may be in another
    /// file).
    public var topicPrefix: String
}
