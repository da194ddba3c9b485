public import WebhookTarget

/// A webhook with every placeholder replaced.
public struct RenderedWebhook: Sendable, Hashable {
    /// The URL.
    public var url: String
    /// The HTTP method.
    public var method: String
    /// The headers, in order.
    public var headers: [HeaderField]
    /// The body; nil means "send the event document".
    public var body: String?
    /// The signing secret, if any.
    public var secret: String?
    /// The timeout of one attempt.
    public var timeout: Duration
    /// How long failed deliveries are retried.
    public var retryFor: Duration
    /// Trust anchors, client certificate and proxy.
    public var transport: WebhookTransport

    /// Creates a rendered webhook.
    /// - Parameters:
    ///   - url: the URL.
    ///   - method: the HTTP method.
    ///   - headers: the headers, in order.
    ///   - body: the body, nil for the event document.
    ///   - secret: the signing secret, if any.
    ///   - timeout: the timeout of one attempt.
    ///   - retryFor: how long failed deliveries are retried.
    ///   - transport: trust anchors, client certificate and proxy.
    public init(
        url: String, method: String, headers: [HeaderField], body: String?, secret: String?, timeout: Duration,
        retryFor: Duration, transport: WebhookTransport = WebhookTransport()
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.secret = secret
        self.timeout = timeout
        self.retryFor = retryFor
        self.transport = transport
    }
}

extension RenderedWebhook: CustomStringConvertible, CustomDebugStringConvertible {
    /// `POST https://ha.local:8123/<3f9a1c2e>`: what interpolation and test failures print, never its credential
    /// headers, secret or the token a URL may carry (``URLRedaction``).
    public var description: String { "\(method) \(URLRedaction.redacted(url))" }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
