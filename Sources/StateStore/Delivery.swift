public import Foundation
public import WebhookTarget

/// One delivery of the outbox: a webhook request or a QoS 1 MQTT publication, from the moment it is accepted
/// until it is delivered or given up. The same value is inserted, sent, updated and listed by `history`.
public struct Delivery: Sendable, Hashable {
    /// What is delivered.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An HTTP request (``Delivery/target`` is its URL).
        case webhook
        /// A QoS 1 MQTT publication (``Delivery/target`` is its topic).
        case mqtt
    }

    /// Where a delivery stands.
    public enum State: String, Sendable, Hashable {
        /// Not delivered yet: due at ``Delivery/nextAttemptAt``.
        case pending
        /// Delivered (a 2xx answer, a PUBACK).
        case delivered
        /// Given up: an answer that can never succeed, or ``Delivery/deadline`` passed.
        case failed

        /// Whether the delivery is over.
        public var isFinished: Bool { self != .pending }
    }

    /// The request method: an HTTP method (an RFC 9110 token) or ``mqtt``.
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The method's name as sent (`POST`) or stored (`MQTT`).
        public var rawValue: String
        /// Creates a method.
        /// - Parameter rawValue: its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `POST`, the webhook default.
        public static let post = Method(rawValue: "POST")
        /// `GET`.
        public static let get = Method(rawValue: "GET")
        /// The method of an MQTT publication.
        public static let mqtt = Method(rawValue: "MQTT")
        /// The name.
        public var description: String { rawValue }
    }

    /// One header line of a webhook request.
    public struct Header: Sendable, Hashable, Codable {
        /// The field name.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a header.
        /// - Parameters:
        ///   - name: the field name (an RFC 9110 token).
        ///   - value: the value (RFC 9110 field-value: no control character but tab).
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The row id; 0 until inserted.
    public var id: Int64 = 0
    /// Webhook or MQTT.
    public var kind: Kind
    /// The event id (`X-TagRouter-Event`, the event document's `id`).
    public var eventID: String
    /// The rule that produced it.
    public var rule: String
    /// The URL of a webhook (placeholders percent-encoded), the topic of a publication.
    public var target: String
    /// The HTTP method, or ``Method/mqtt``.
    public var method: Method
    /// A webhook's own headers, in order.
    public var headers: [Header] = []
    /// A webhook's `Content-Type`, unless ``headers`` has one.
    public var contentType: String = ""
    /// The body (the payload of a publication), sent unchanged on every attempt.
    public var body: [UInt8] = []
    /// A webhook's signing secret.
    public var secret: String?
    /// A webhook's trust anchors, client certificate and proxy, when its rule sets them.
    public var transport: WebhookTransport?
    /// The time limit of one attempt, in milliseconds.
    public var timeoutMilliseconds: Int64 = 0
    /// A publication's QoS (1; 0 publications are never stored).
    public var qos: Int = 0
    /// A publication's retain flag.
    public var retain: Bool = false
    /// Where it stands.
    public var state: State = .pending
    /// Attempts made so far.
    public var attempts: Int = 0
    /// The status of the last answer, if there was one.
    public var lastStatus: Int?
    /// The last error (status and body snippet, or connection error), if any.
    public var lastError: String?
    /// When it was accepted, in milliseconds since 1970.
    public var createdAt: Int64
    /// When the next attempt is due, in milliseconds since 1970.
    public var nextAttemptAt: Int64
    /// When retrying stops, in milliseconds since 1970.
    public var deadline: Int64
    /// When it was delivered or given up, in milliseconds since 1970.
    public var finishedAt: Int64?

    /// Creates a pending delivery, due at once.
    /// - Parameters:
    ///   - kind: webhook or MQTT.
    ///   - eventID: the event id.
    ///   - rule: the rule name.
    ///   - target: the URL or topic.
    ///   - method: the HTTP method or ``Method/mqtt``.
    ///   - createdAt: the acceptance time.
    ///   - retryFor: how long to keep retrying.
    public init(
        kind: Kind, eventID: String, rule: String, target: String, method: Method, createdAt: Date,
        retryFor: Duration
    ) {
        self.kind = kind
        self.eventID = eventID
        self.rule = rule
        self.target = target
        self.method = method
        self.createdAt = Timestamp.milliseconds(createdAt)
        self.nextAttemptAt = self.createdAt
        let (seconds, attoseconds) = retryFor.components
        self.deadline = self.createdAt + max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

/// What one attempt changes in a delivery: its new state, when it is due again, and what the attempt said.
public struct DeliveryOutcome: Sendable, Hashable {
    /// The delivery's row id.
    public var id: Int64
    /// Its state after the attempt.
    public var state: Delivery.State
    /// The answer's status, if there was an answer.
    public var status: Int?
    /// The attempt's error, if it failed.
    public var error: String?
    /// When the next attempt is due (pending), in milliseconds since 1970.
    public var nextAttemptAt: Int64
    /// When it was finished (delivered or failed), in milliseconds since 1970.
    public var finishedAt: Int64?

    /// Creates an outcome.
    /// - Parameters:
    ///   - id: the delivery's row id.
    ///   - state: its state after the attempt.
    ///   - status: the answer's status.
    ///   - error: the attempt's error.
    ///   - nextAttemptAt: when it is due again.
    ///   - finishedAt: when it was finished.
    public init(
        id: Int64, state: Delivery.State, status: Int? = nil, error: String? = nil, nextAttemptAt: Int64,
        finishedAt: Int64? = nil
    ) {
        self.id = id
        self.state = state
        self.status = status
        self.error = error
        self.nextAttemptAt = nextAttemptAt
        self.finishedAt = finishedAt
    }
}

extension Delivery: CustomStringConvertible, CustomDebugStringConvertible {
    /// `delivery 12: POST https://ha.local:8123/<3f9a1c2e>, pending after 2 attempts`: never its headers, secret
    /// or the token a URL may carry (``WebhookTarget/URLRedaction``).
    public var description: String {
        "delivery \(id): \(method.rawValue) \(shownTarget), \(state.rawValue) after \(attempts) attempts"
            + (lastError.map { " (\($0))" } ?? "")
    }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
