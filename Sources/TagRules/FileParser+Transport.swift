import Foundation
import WebhookTarget
import Yams

extension FileParser {
    static let tlsKeys = ["ca", "certificate", "key"]
    static let webhookDefaultsKeys = ["tls", "proxy"]

    /// Parses `defaults: { webhook: { tls: …, proxy: … } }`.
    func parseWebhookDefaults(_ node: Node) -> WebhookTransport {
        guard let mapping = mapping(node, "'webhook' in 'defaults'") else { return WebhookTransport() }
        var transport = WebhookTransport()
        for entry in entries(mapping, allowed: Self.webhookDefaultsKeys, context: "in 'defaults: webhook'") {
            parseTransport(entry.key, entry.value, into: &transport)
        }
        return transport
    }

    /// Parses a webhook's `tls:` or `proxy:` value into `transport`.
    func parseTransport(_ key: String, _ node: Node, into transport: inout WebhookTransport) {
        if key == "proxy" {
            transport.proxy = parseProxy(node)
            return
        }
        guard let tls = mapping(node, "'tls'") else { return }
        var certificateNode: Node?
        var keyNode: Node?
        for entry in entries(tls, allowed: Self.tlsKeys, context: "in 'tls'") {
            guard let path = readableFile(entry.value, "'\(entry.key)'") else { continue }
            switch entry.key {
            case "ca": transport.caFile = path
            case "certificate":
                transport.certificateFile = path
                certificateNode = entry.value
            default:
                transport.keyFile = path
                keyNode = entry.value
            }
        }
        if let certificateNode, keyNode == nil {
            error(certificateNode, "'tls' has a 'certificate' but no 'key' (mutual TLS needs both)")
        }
        if let keyNode, certificateNode == nil {
            error(keyNode, "'tls' has a 'key' but no 'certificate' (mutual TLS needs both)")
        }
    }

    /// `none` or `http://[user:password@]host:port`.
    private func parseProxy(_ node: Node) -> WebhookTransport.Proxy? {
        guard let (text, display) = string(node, "'proxy'") else { return nil }
        if text == "none" { return .direct }
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
            let host = components.host, !host.isEmpty, components.port != nil,
            components.path.isEmpty || components.path == "/", components.query == nil
        else {
            error(node, "'proxy' '\(display)' is not none or http://host:port")
            return nil
        }
        return .server(text)
    }

    /// A path to a file that exists and can be read (the router reads it at every connection).
    private func readableFile(_ node: Node, _ what: String) -> String? {
        guard let (path, display) = string(node, what) else { return nil }
        guard path.hasPrefix("/") else {
            error(node, "\(what) '\(display)' must be an absolute path")
            return nil
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            error(node, "\(what) '\(display)' cannot be read")
            return nil
        }
        return path
    }
}
