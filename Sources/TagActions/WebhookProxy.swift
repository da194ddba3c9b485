import AsyncHTTPClient
import Foundation

/// Which proxy a webhook goes through: the rule's `proxy:` when it has one, else the standard environment
/// (`HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http URLs, either in lower case too, and `NO_PROXY`'s
/// exceptions), else none (docs/rules.md, "`webhook`: HTTP requests").
struct WebhookProxy: Sendable, Hashable {
    /// The proxy's host, port and credentials, as AsyncHTTPClient takes them.
    var host: String
    var port: Int
    var username: String?
    var password: String?

    /// The client configuration's proxy.
    var configuration: HTTPClient.Configuration.Proxy {
        guard let username else { return .server(host: host, port: port) }
        return .server(host: host, port: port, authorization: .basic(username: username, password: password ?? ""))
    }

    /// Parses `http://[user:password@]host:port` (a missing port is 80; other schemes are refused).
    init?(url: String) {
        guard let components = URLComponents(string: url.contains("://") ? url : "http://" + url),
            components.scheme?.lowercased() == "http", let host = components.host, !host.isEmpty
        else { return nil }
        self.host = host
        self.port = components.port ?? 80
        self.username = components.user?.removingPercentEncoding
        self.password = components.password?.removingPercentEncoding
    }

    /// The environment's proxy settings, read once when the worker starts.
    struct Environment: Sendable, Hashable {
        var https: WebhookProxy?
        var http: WebhookProxy?
        /// `NO_PROXY`: host names or domain suffixes (`.example.com`, `example.com`), or `*` for every host.
        var exceptions: [String] = []

        /// Reads `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (or their lower-case forms, which win, as curl does).
        init(_ environment: [String: String]) {
            func value(_ name: String) -> String? {
                (environment[name.lowercased()] ?? environment[name]).flatMap { $0.isEmpty ? nil : $0 }
            }
            https = value("HTTPS_PROXY").flatMap(WebhookProxy.init(url:))
            http = value("HTTP_PROXY").flatMap(WebhookProxy.init(url:))
            exceptions = (value("NO_PROXY") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }.filter { !$0.isEmpty }
        }

        /// The proxy for a URL, by its scheme and host; nil for a direct connection. Without proxy variables the
        /// URL is not parsed at all.
        func proxy(for url: String) -> WebhookProxy? {
            guard https != nil || http != nil, let components = URLComponents(string: url) else { return nil }
            let scheme = components.scheme?.lowercased() ?? ""
            let host = (components.host ?? "").lowercased()
            for exception in exceptions {
                if exception == "*" { return nil }
                let domain = exception.hasPrefix(".") ? String(exception.dropFirst()) : exception
                if host == domain || host.hasSuffix("." + domain) { return nil }
            }
            return scheme == "https" ? https : http
        }
    }
}
