/// A webhook delivery or QoS 1 MQTT publication as `tagrouter history` shows it.
public struct DeliveryRecord: Sendable, Hashable, Encodable {
    /// The delivery's row id.
    public var id: Int64
    /// The event id (`X-TagRouter-Event`).
    public var eventID: String
    /// The rule that produced it.
    public var rule: String
    /// The URL without user info, query or fragment; the topic of an MQTT publication.
    public var url: String
    /// The HTTP method; `MQTT` for an MQTT publication.
    public var method: String
    /// `pending`, `delivered` or `failed`.
    public var state: String
    /// Attempts made so far.
    public var attempts: Int
    /// The status of the last answer, if there was one.
    public var lastStatus: Int?
    /// The last error (status and body snippet, or connection error), if any.
    public var lastError: String?
    /// When it was accepted, RFC 3339.
    public var createdAt: String
    /// When the next attempt is due (pending deliveries only), RFC 3339.
    public var nextAttemptAt: String?
    /// When it was delivered or given up, RFC 3339.
    public var finishedAt: String?
    /// `webhook` or `mqtt`.
    public var kind: String = "webhook"

    enum CodingKeys: String, CodingKey {
        case id, rule, url, method, state, attempts
        case eventID = "eventId"
        case lastStatus, lastError, createdAt, nextAttemptAt, finishedAt, kind
    }
}
