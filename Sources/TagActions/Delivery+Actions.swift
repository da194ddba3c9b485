public import Foundation
public import StateStore
public import TagRules
import WebhookRetry
public import WebhookTarget

/// A `webhook` or `mqtt` action becomes a ``StateStore/Delivery`` as soon as its placeholders are rendered: one value
/// carries the request from the rule's rendering (``TagRules/RenderedWebhook``, ``TagRules/RenderedMQTT``) to the
/// outbox, the sender and `history`, with no other type in between.
extension Delivery {
    /// A webhook request to deliver at least once (docs/rules.md, "`webhook`: HTTP requests"), accepted now.
    /// - Parameters:
    ///   - url: the `http` or `https` URL, placeholders already percent-encoded.
    ///   - method: the HTTP method, `POST` by default.
    ///   - headers: the rule's headers, in order; `User-Agent` and `X-TagRouter-*` are always set by TagRouter.
    ///   - body: the body bytes, sent unchanged on every attempt.
    ///   - contentType: the body's media type, unless `headers` has a `Content-Type`.
    ///   - secret: the signing secret, if the rule has one.
    ///   - timeout: the time limit of one attempt.
    ///   - retryFor: how long to keep retrying after the delivery was accepted (default 24 h).
    ///   - eventID: the event id, sent as `X-TagRouter-Event` on every attempt.
    ///   - rule: the rule that produced it, for history and logs.
    ///   - transport: trust anchors, client certificate and proxy, as the rule sets them.
    ///   - acceptedAt: the acceptance time.
    /// - Returns: a pending webhook delivery, due at once (not validated: the outbox validates what it accepts).
    public static func webhook(
        url: String, method: String = "POST", headers: [Header] = [], body: [UInt8] = [],
        contentType: String = "application/json", secret: String? = nil, timeout: Duration = .seconds(5),
        retryFor: Duration = .seconds(24 * 3600), eventID: String, rule: String,
        transport: WebhookTransport = WebhookTransport(), acceptedAt: Date = Date()
    ) -> Delivery {
        var delivery = Delivery(
            kind: .webhook, eventID: eventID, rule: rule, target: url, method: Method(rawValue: method),
            createdAt: acceptedAt, retryFor: retryFor)
        delivery.headers = headers
        delivery.contentType = contentType
        delivery.body = body
        delivery.secret = secret
        delivery.timeoutMilliseconds = max(1, timeout.milliseconds)
        delivery.transport = transport.isDefault ? nil : transport
        return delivery
    }

    /// The delivery of a rendered `webhook` action.
    /// - Parameters:
    ///   - webhook: the rendered action.
    ///   - rule: the name of the rule it comes from.
    ///   - document: the event; its JSON is the body when the action sets none.
    /// - Returns: a pending webhook delivery, due at once.
    public static func webhook(_ webhook: RenderedWebhook, rule: String, document: EventDocument) -> Delivery {
        .webhook(
            url: webhook.url, method: webhook.method, headers: webhook.headers.map { Header($0.name, $0.value) },
            body: webhook.body.map { Array($0.utf8) } ?? document.jsonBytes(), secret: webhook.secret,
            timeout: webhook.timeout, retryFor: webhook.retryFor, eventID: document.id, rule: rule,
            transport: webhook.transport)
    }

    /// An MQTT publication (docs/rules.md, "`mqtt`: publications"), accepted now: QoS 1 goes through the outbox and
    /// is delivered at least once, QoS 0 is handed to the broker if connected and never stored.
    /// - Parameters:
    ///   - topic: the topic.
    ///   - payload: the payload bytes.
    ///   - qos: 0 or 1.
    ///   - retain: whether the broker retains it.
    ///   - retryFor: how long QoS 1 is retried before it is kept as failed (default 24 h).
    ///   - eventID: the event id (the payload carries it too, so a receiver can drop duplicates).
    ///   - rule: the rule that produced it.
    ///   - acceptedAt: the acceptance time.
    /// - Returns: a pending publication, due at once (not validated: the publisher validates what it accepts).
    public static func mqtt(
        topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false, retryFor: Duration = .seconds(86_400),
        eventID: String, rule: String, acceptedAt: Date = Date()
    ) -> Delivery {
        var delivery = Delivery(
            kind: .mqtt, eventID: eventID, rule: rule, target: topic, method: .mqtt, createdAt: acceptedAt,
            retryFor: retryFor)
        delivery.body = payload
        delivery.qos = qos
        delivery.retain = retain
        return delivery
    }

    /// The publication of a rendered `mqtt` action.
    /// - Parameters:
    ///   - rendered: the rendered action.
    ///   - rule: the name of the rule it comes from.
    ///   - document: the event; its JSON is the payload when the action sets none.
    /// - Returns: a pending publication, due at once.
    public static func mqtt(_ rendered: RenderedMQTT, rule: String, document: EventDocument) -> Delivery {
        .mqtt(
            topic: rendered.topic, payload: rendered.payload.map { Array($0.utf8) } ?? document.jsonBytes(),
            qos: rendered.qos, retain: rendered.retain, retryFor: rendered.retryFor, eventID: document.id, rule: rule)
    }

    /// Checks what must never reach the wire. A webhook: a non-http(s) URL, raw control or space characters in the
    /// URL, a method or header name that is not a token, a header value that is not an RFC 9110 field value (a
    /// control character other than tab). A publication: a topic a broker refuses, a QoS other than 0 or 1, a payload
    /// over MQTT's 256 MiB.
    /// - Throws: ``ActionError`` (`invalidRequest`) naming the rule or topic and the offending part.
    public func validate() throws {
        switch kind {
        case .webhook: try validateWebhook()
        case .mqtt: try validatePublication()
        }
    }

    private func validateWebhook() throws {
        // Redacting parses the URL once more: only an error message needs it.
        var shown: String { URLRedaction.redacted(target) }
        guard !target.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw ActionError(
                .invalidRequest, "webhook of rule '\(rule)': URL \(shown) contains a space or control character")
        }
        guard let components = URLComponents(string: target), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", !(components.host ?? "").isEmpty
        else {
            throw ActionError(.invalidRequest, "webhook of rule '\(rule)': URL \(shown) is not an http or https URL")
        }
        guard Self.isToken(method.rawValue) else {
            throw ActionError(
                .invalidRequest, "webhook of rule '\(rule)': method '\(method)' is not a valid HTTP method")
        }
        for header in headers + [Header("Content-Type", contentType)] {
            guard Self.isToken(header.name) else {
                throw ActionError(.invalidRequest, "webhook of rule '\(rule)': invalid header name '\(header.name)'")
            }
            guard HeaderField.isFieldValue(header.value) else {
                throw ActionError(
                    .invalidRequest,
                    "webhook of rule '\(rule)': header '\(header.name)' contains a control character"
                )
            }
        }
    }

    private func validatePublication() throws {
        if let problem = MQTTTopic.problem(in: target) {
            throw ActionError(.invalidRequest, "mqtt topic '\(target)' \(problem)")
        }
        guard qos == 0 || qos == 1 else {
            throw ActionError(.invalidRequest, "mqtt publication to '\(target)': qos \(qos) is not 0 or 1")
        }
        guard body.count < 268_435_455 else {
            throw ActionError(.invalidRequest, "mqtt publication to '\(target)': the payload is over 256 MiB")
        }
    }

    /// Whether `text` is an RFC 9110 token (method and header names).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
