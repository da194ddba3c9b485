public import Foundation
public import StateStore
import TagRules
import WebhookRetry
public import WebhookTarget

/// A `webhook` action after its placeholders were rendered: one HTTP request to deliver at least once.
public struct WebhookRequest: Sendable, Hashable {
    /// One header line.
    public typealias Header = Delivery.Header

    /// The `http` or `https` URL, placeholders already percent-encoded.
    public var url: String
    /// The method, `POST` by default.
    public var method: String
    /// The rule's headers, in order. `User-Agent` and `X-TagRouter-*` are always set by TagRouter.
    public var headers: [Header]
    /// The body bytes, sent unchanged on every attempt.
    public var body: [UInt8]
    /// The `Content-Type`, unless `headers` has one.
    public var contentType: String
    /// The signing secret, if the rule has one.
    public var secret: String?
    /// The time limit of one attempt.
    public var timeout: Duration
    /// How long to keep retrying after the delivery was accepted (default 24 h).
    public var retryFor: Duration
    /// The event id, sent as `X-TagRouter-Event` on every attempt.
    public var eventID: String
    /// The rule that produced the request, for history and logs.
    public var rule: String
    /// Trust anchors, client certificate and proxy, as the rule sets them.
    public var transport: WebhookTransport

    /// Creates a request.
    /// - Parameters:
    ///   - url: the rendered URL.
    ///   - method: the HTTP method.
    ///   - headers: the rendered headers.
    ///   - body: the body (the event document unless the rule has its own).
    ///   - contentType: the body's media type.
    ///   - secret: the signing secret, if any.
    ///   - timeout: the per-attempt time limit (docs/rules.md, "`webhook`: HTTP requests").
    ///   - retryFor: how long to retry.
    ///   - eventID: the event id.
    ///   - rule: the rule name.
    ///   - transport: trust anchors, client certificate and proxy.
    public init(
        url: String,
        method: String = "POST",
        headers: [Header] = [],
        body: [UInt8] = [],
        contentType: String = "application/json",
        secret: String? = nil,
        timeout: Duration = .seconds(5),
        retryFor: Duration = .seconds(24 * 3600),
        eventID: String,
        rule: String,
        transport: WebhookTransport = WebhookTransport()
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.contentType = contentType
        self.secret = secret
        self.timeout = timeout
        self.retryFor = retryFor
        self.eventID = eventID
        self.rule = rule
        self.transport = transport
    }

    /// Checks what must never reach the wire: a non-http(s) URL, raw control or space characters in the URL,
    /// a method or header name that is not a token, a header value that is not an RFC 9110 field value (a control
    /// character other than tab).
    /// - Throws: ``ActionError`` (`invalidRequest`) naming the rule and the offending part.
    public func validate() throws {
        // Redacting parses the URL once more: only an error message needs it.
        var shown: String { URLRedaction.redacted(url) }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw ActionError(
                .invalidRequest, "webhook of rule '\(rule)': URL \(shown) contains a space or control character")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", !(components.host ?? "").isEmpty
        else {
            throw ActionError(.invalidRequest, "webhook of rule '\(rule)': URL \(shown) is not an http or https URL")
        }
        guard Self.isToken(method) else {
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

    /// The delivery the outbox stores for this request, validated.
    /// - Parameter now: the acceptance time.
    /// - Returns: a pending delivery, due at once.
    /// - Throws: ``ActionError`` (`invalidRequest`).
    public func delivery(now: Date) throws -> Delivery {
        try validate()
        var delivery = Delivery(
            kind: .webhook, eventID: eventID, rule: rule, target: url, method: Delivery.Method(rawValue: method),
            createdAt: now, retryFor: retryFor)
        delivery.headers = headers
        delivery.contentType = contentType
        delivery.body = body
        delivery.secret = secret
        delivery.timeoutMilliseconds = max(1, timeout.milliseconds)
        delivery.transport = transport.isDefault ? nil : transport
        return delivery
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

extension WebhookRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// `POST https://ha.local:8123/<3f9a1c2e> (rule door, event …)`: never its headers, secret or the token a URL
    /// may carry (``TagRules/URLRedaction``).
    public var description: String { "\(method) \(URLRedaction.redacted(url)) (rule \(rule), event \(eventID))" }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
