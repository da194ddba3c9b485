/// What a ``MQTTConnection`` reports from its network thread, in order.
public enum MQTTEvent: Sendable, Hashable {
    /// The broker accepted the connection (CONNACK 0). In-flight QoS 1 publications are sent again (DUP).
    case connected
    /// The broker answered CONNACK with a refusal: bad credentials, not authorised, identifier rejected, ….
    case refused(code: Int, reason: String)
    /// The TCP or TLS connection could not be made (refused, unreachable, DNS, certificate).
    case connectFailed(reason: String)
    /// An established connection ended (broker gone, keep-alive timeout, network error).
    case lost(reason: String)
    /// The broker acknowledged the QoS 1 publication with this message id (PUBACK).
    case acknowledged(messageID: Int32)
    /// A message arrived on a subscribed topic.
    case message(MQTTMessage)
    /// The connection was stopped with ``MQTTConnection/stop()``; no event follows.
    case stopped
}
