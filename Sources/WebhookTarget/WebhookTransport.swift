/// How a webhook reaches its receiver: extra trust anchors, a client certificate (mutual TLS) and the proxy
/// (docs/rules.md, "`webhook`: HTTP requests"). Written per webhook (`tls:`, `proxy:`) or for a file's webhooks in
/// `defaults: { webhook: … }`; literal values only, never placeholders.
public struct WebhookTransport: Sendable, Hashable, Codable {
    /// Where the request goes through.
    public enum Proxy: Sendable, Hashable, Codable {
        /// Straight to the receiver, whatever `HTTPS_PROXY`/`HTTP_PROXY` say (`proxy: none`).
        case direct
        /// Through an HTTP proxy (`CONNECT`), `http://[user:password@]host:port`.
        case server(String)
    }

    /// A PEM file of CA certificates trusted in addition to the system's.
    public var caFile: String?
    /// A PEM file with the client certificate (chain) presented to the receiver.
    public var certificateFile: String?
    /// The PEM file of the client certificate's private key.
    public var keyFile: String?
    /// The proxy; nil: as the router's environment says (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`).
    public var proxy: Proxy?

    /// Creates transport settings.
    /// - Parameters:
    ///   - caFile: extra trust anchors (PEM).
    ///   - certificateFile: the client certificate (PEM).
    ///   - keyFile: its private key (PEM).
    ///   - proxy: the proxy, nil for the environment's.
    public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, proxy: Proxy? = nil) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.proxy = proxy
    }

    /// Whether nothing is set (the system's trust store, no client certificate, the environment's proxy).
    public var isDefault: Bool { self == WebhookTransport() }

    /// These settings, each unset one taken from `defaults`.
    /// - Parameter defaults: the file's `defaults: { webhook: … }`.
    /// - Returns: the merged settings.
    public func merged(over defaults: WebhookTransport) -> WebhookTransport {
        let hasOwnCertificate = certificateFile != nil
        return WebhookTransport(
            caFile: caFile ?? defaults.caFile,
            certificateFile: hasOwnCertificate ? certificateFile : defaults.certificateFile,
            keyFile: hasOwnCertificate ? keyFile : defaults.keyFile,
            proxy: proxy ?? defaults.proxy)
    }
}
