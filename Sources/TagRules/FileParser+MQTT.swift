import Foundation
import WebhookTarget
import Yams

extension FileParser {
    static let mqttKeys = [
        "url", "username", "password", "clientId", "topicPrefix", "tls", "keepAlive", "homeAssistant", "decisions",
    ]
    static let mqttTLSKeys = ["ca", "cert", "key"]
    static let mqttActionKeys = ["topic", "payload", "qos", "retain", "retryFor"]

    /// Parses the `mqtt:` block (docs/rules.md, "`mqtt:`: the broker"); a second block in the rule set is an
    /// error naming the first.
    func parseMQTTBlock(_ node: Node, keyNode: Node) {
        if let first = knownMQTT {
            error(keyNode, "a second 'mqtt' block (a rule set has one broker; the first is at \(first))")
            return
        }
        let here = location(keyNode)
        knownMQTT = here
        guard let mapping = mapping(node, "'mqtt'") else { return }
        let items = entries(mapping, allowed: Self.mqttKeys, context: "in 'mqtt'")
        guard let urlItem = items.first(where: { $0.key == "url" }) else {
            error(node, "'mqtt' has no 'url' (write url: \"mqtt://broker.example:1883\")")
            return
        }
        guard let (urlText, display) = string(urlItem.value, "'url'"),
            let endpoint = brokerEndpoint(urlText, display: display, node: urlItem.value)
        else { return }
        var settings = MQTTSettings(
            url: display, host: endpoint.host, port: endpoint.port, usesTLS: endpoint.usesTLS, username: nil,
            password: nil, clientID: Self.defaultClientID(), topicPrefix: "", tls: nil, keepAlive: .seconds(30),
            discoveryPrefix: nil, location: here)
        var topicPrefix: String?
        for item in items {
            switch item.key {
            case "username":
                settings.username = string(item.value, "'username'").flatMap { $0.value.isEmpty ? nil : $0.value }
            case "password":
                settings.password = string(item.value, "'password'").flatMap { $0.value.isEmpty ? nil : $0.value }
                if settings.sendsPasswordInPlainText {
                    warning(
                        item.value,
                        "the MQTT password goes over plain mqtt://, readable on the network (use mqtts://)")
                }
            case "clientId":
                guard let (id, shown) = string(item.value, "'clientId'") else { continue }
                if id.isEmpty || id.utf8.count > 64
                    || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
                {
                    error(item.value, "clientId '\(shown)' must be 1 to 64 letters, digits, '-', '_' or '.'")
                } else {
                    settings.clientID = id
                }
            case "topicPrefix":
                guard let (prefix, shown) = string(item.value, "'topicPrefix'") else { continue }
                if let problem = MQTTTopic.problem(in: prefix) ?? (prefix.hasSuffix("/") ? "ends with '/'" : nil) {
                    error(item.value, "topicPrefix '\(shown)' \(problem)")
                } else {
                    topicPrefix = prefix
                }
            case "tls":
                guard endpoint.usesTLS else {
                    error(item.keyNode, "'tls' needs an mqtts:// url (the url is '\(display)')")
                    continue
                }
                settings.tls = parseMQTTTLS(item.value)
            case "keepAlive":
                guard let keepAlive = duration(item.value, "'keepAlive'") else { continue }
                if keepAlive < .seconds(5) || keepAlive > .seconds(65_535) {
                    error(item.value, "keepAlive must be between 5s and 65535s")
                } else {
                    settings.keepAlive = keepAlive
                }
            case "homeAssistant":
                settings.discoveryPrefix = parseHomeAssistant(item.value)
            case "decisions":
                settings.publishesDecisions = bool(item.value, "'decisions'") ?? false
            default:
                break
            }
        }
        settings.topicPrefix = topicPrefix ?? "tagrouter/\(settings.clientID)"
        if settings.discoveryPrefix != nil, settings.discoveryNodeID != settings.clientID,
            let clientNode = items.first(where: { $0.key == "clientId" })?.value
        {
            warning(
                clientNode,
                "Home Assistant's discovery topics cannot carry the '.' of clientId '\(settings.clientID)': its "
                    + "readers are announced under '\(settings.discoveryNodeID)'")
        }
        mqttSettings = settings
    }

    private func parseMQTTTLS(_ node: Node) -> MQTTSettings.TLSFiles? {
        guard let mapping = mapping(node, "'tls'") else { return nil }
        var files = MQTTSettings.TLSFiles()
        for item in entries(mapping, allowed: Self.mqttTLSKeys, context: "in 'tls'") {
            guard let (path, _) = string(item.value, "'\(item.key)'") else { continue }
            let absolute = path.hasPrefix("/") ? path : directory + "/" + path
            switch item.key {
            case "ca": files.ca = absolute
            case "cert": files.certificate = absolute
            default: files.key = absolute
            }
        }
        if (files.certificate == nil) != (files.key == nil) {
            error(node, "'tls' needs both 'cert' and 'key' for a client certificate")
        }
        return files
    }

    /// `homeAssistant: true` (prefix `homeassistant`), `false`, or `{ discoveryPrefix: … }`.
    private func parseHomeAssistant(_ node: Node) -> String? {
        if case .mapping(let mapping) = node {
            var prefix = "homeassistant"
            for item in entries(mapping, allowed: ["discoveryPrefix"], context: "in 'homeAssistant'") {
                guard let (value, shown) = string(item.value, "'discoveryPrefix'") else { continue }
                if let problem = MQTTTopic.problem(in: value) ?? (value.hasSuffix("/") ? "ends with '/'" : nil) {
                    error(item.value, "discoveryPrefix '\(shown)' \(problem)")
                } else {
                    prefix = value
                }
            }
            return prefix
        }
        return bool(node, "'homeAssistant'") == true ? "homeassistant" : nil
    }

    /// Host, port and TLS from `mqtt://host[:port]` or `mqtts://host[:port]`; nil (after an error) otherwise.
    private func brokerEndpoint(_ text: String, display: String, node: Node) -> (
        host: String, port: Int, usesTLS: Bool
    )? {
        guard let schemeEnd = text.range(of: "://") else {
            error(node, "broker url '\(display)' is not mqtt:// or mqtts://")
            return nil
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "mqtt" || scheme == "mqtts" else {
            error(node, "broker url '\(display)' is not mqtt:// or mqtts:// (scheme '\(scheme)')")
            return nil
        }
        var rest = text[schemeEnd.upperBound...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            error(node, "broker url '\(display)' has a path, query or fragment (write \(scheme)://host:port)")
            return nil
        }
        if rest.contains("@") {
            let shown = URLRedaction.origin(display) ?? "<invalid URL>"
            error(node, "broker url '\(shown)' has credentials before '@': put them in 'username' and 'password'")
            return nil
        }
        var host = String(rest)
        var port = scheme == "mqtts" ? 8883 : 1883
        let portSeparator = host.hasPrefix("[") ? host.range(of: "]:") : host.range(of: ":", options: .backwards)
        if let portSeparator {
            let portText = host[portSeparator.upperBound...]
            guard let number = Int(portText), (1...65_535).contains(number) else {
                error(node, "broker url '\(display)' has an invalid port '\(portText)'")
                return nil
            }
            port = number
            host = String(host[..<portSeparator.lowerBound]) + (host.hasPrefix("[") ? "]" : "")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            error(node, "broker url '\(display)' has no host")
            return nil
        }
        return (host, port, scheme == "mqtts")
    }

    /// Whether a broker host is this machine (`localhost`, `127.0.0.0/8`, `::1`): a password sent there over
    /// plain `mqtt://` never crosses a network.
    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        return lower == "localhost" || lower.hasSuffix(".localhost") || lower == "::1"
            || (lower.hasPrefix("127.") && lower.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") })
    }

    /// `tagrouter-<hostname>`, the host name reduced to letters, digits and `-`.
    static func defaultClientID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = String(name.prefix { $0 != "." }.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" })
        return "tagrouter-" + (cleaned.isEmpty ? "host" : String(cleaned.prefix(50)))
    }

    /// Parses an `mqtt` action (docs/rules.md, "`mqtt`: publications"). An `mqtt` action in a rule set without
    /// an `mqtt:` block is an error, reported by the loader once every file is read.
    func parseMQTT(_ node: Node, context: String) -> MQTTAction? {
        var action = MQTTAction(
            topic: nil, payload: nil, payloadIsJSON: true, qos: 1, retain: false, retryFor: .seconds(86_400),
            topicPrefix: "")
        mqttActionSites.append(
            pendingDiagnostic(
                node, "an 'mqtt' action \(context) needs an 'mqtt:' block with the broker's url (none in the rule set)")
        )
        if case .scalar(let scalar) = node, YAMLNodes.isNull(scalar) { return action }
        guard let mapping = mapping(node, "'mqtt'") else { return nil }
        let errorsBefore = diagnostics.count { $0.severity == .error }
        var retryForNode: Node?
        for item in entries(mapping, allowed: Self.mqttActionKeys, context: "in 'mqtt' \(context)") {
            switch item.key {
            case "topic":
                guard let topic = template(item.value, "'topic'") else { continue }
                if let problem = Self.topicProblem(topic) {
                    error(item.value, "topic '\(topic)' \(problem)")
                } else {
                    action.topic = topic
                }
            case "payload":
                guard let payload = template(item.value, "'payload'") else { continue }
                action.payload = payload
                let start = payload.staticPrefix.drop { $0 == " " || $0 == "\t" || $0.isNewline }
                action.payloadIsJSON = start.hasPrefix("{") || start.hasPrefix("[")
            case "qos":
                guard let (text, shown) = string(item.value, "'qos'") else { continue }
                guard let qos = Int(text), qos == 0 || qos == 1 else {
                    error(item.value, "'qos' must be 0 or 1, not '\(shown)'")
                    continue
                }
                action.qos = qos
            case "retain":
                action.retain = bool(item.value, "'retain'") ?? false
            case "retryFor":
                retryForNode = item.value
                action.retryFor = duration(item.value, "'retryFor'") ?? action.retryFor
            default:
                break
            }
        }
        if action.qos == 0, let retryForNode {
            warning(retryForNode, "'retryFor' has no effect with qos 0 (QoS 0 is never stored or retried)")
        }
        return diagnostics.count { $0.severity == .error } == errorsBefore ? action : nil
    }

    /// Why a topic template's fixed text is not a valid topic (wildcards, NUL, a leading `/`, empty), or nil.
    static func topicProblem(_ topic: Template) -> String? {
        if topic.segments.isEmpty { return "is empty" }
        var fixed = ""
        for segment in topic.segments {
            switch segment {
            case .literal(let text): fixed += text
            case .secret(_, let value): fixed += value
            case .placeholder: fixed += "x"
            }
        }
        return MQTTTopic.problem(in: fixed)
    }

    /// A diagnostic at `node`, built now but reported later (by the loader).
    func pendingDiagnostic(_ node: Node, _ message: String) -> Diagnostic {
        let (line, column) = position(node)
        let source = line >= 1 && line <= lines.count ? String(lines[line - 1]).trimmingSuffixCR : nil
        return Diagnostic(file: file, line: line, column: column, message: message, sourceLine: source)
    }
}
