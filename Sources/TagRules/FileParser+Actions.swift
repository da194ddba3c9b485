import AASAPatterns
import Foundation
import WebhookTarget
import Yams

extension FileParser {
    static let runKeys = ["argv", "timeout", "env", "cwd"]
    static let webhookKeys = [
        "url", "method", "headers", "body", "secret", "timeout", "retryFor", "tls", "proxy",
    ]

    /// Parses an `actions:` list: each item a mapping with exactly one of `run`, `open`, `webhook`, `mqtt`.
    func parseActionList(_ node: Node, context: String) -> [Action] {
        guard case .sequence(let list) = node else {
            error(node, "'actions' must be a list, not \(YAMLNodes.kind(node))")
            return []
        }
        if list.isEmpty { error(node, "'actions' is empty \(context)") }
        var actions: [Action] = []
        for item in list {
            guard let mapping = mapping(item, "an action") else { continue }
            let entries = entries(
                mapping, allowed: ["run", "open", "webhook", "mqtt", "type"], context: "in an action \(context)")
            if entries.count != 1 {
                // One unknown key was reported by `entries`; none at all, or several, are reported here.
                if mapping.isEmpty {
                    error(item, "an action is empty \(context) (give one of 'run', 'open', 'webhook' or 'mqtt')")
                } else if mapping.count > 1 {
                    error(item, "an action has exactly one of 'run', 'open', 'webhook', 'mqtt' or 'type' \(context)")
                }
                continue
            }
            if let action = parseAction(entries[0].key, entries[0].value, context: context) { actions.append(action) }
        }
        return actions
    }

    /// The variable the system unit sets (contrib/systemd/tagrouter.service), so that `check` and `run` refuse what
    /// only a desktop session can do (`type`).
    static let systemServiceVariable = "TAGROUTER_SYSTEM_SERVICE"

    /// Parses one `run`, `open`, `webhook`, `mqtt` or `type` value.
    func parseAction(_ kind: String, _ node: Node, context: String) -> Action? {
        switch kind {
        case "open":
            guard let uri = template(node, "'open'") else { return nil }
            if uri.segments.isEmpty {
                error(node, "'open' is empty \(context) (write \"{uri}\" to open the tag's URI)")
                return nil
            }
            openSites.append((uri, node))
            return .open(uri)
        case "type":
            guard let text = template(node, "'type'") else { return nil }
            if text.segments.isEmpty {
                error(node, "'type' is empty \(context) (write the text to type, such as \"{uid}\\n\")")
                return nil
            }
            if environment[Self.systemServiceVariable] == "1" {
                error(
                    node,
                    "'type' needs the desktop session of the user unit (tagrouter-user.service); the system service "
                        + "has no keyboard focus to type into \(context)")
                return nil
            }
            typeSites.append((text, node))
            return .type(text)
        case "run": return parseRun(node, context: context).map { .run($0) }
        case "mqtt": return parseMQTT(node, context: context).map { .mqtt($0) }
        default: return parseWebhook(node, context: context).map { .webhook($0) }
        }
    }

    /// A template from a string node, with placeholder and `${}` problems reported at their column.
    func template(_ node: Node, _ what: String) -> Template? {
        guard case .scalar(let scalar) = node, !YAMLNodes.isNull(scalar) else {
            error(node, "\(what) must be a string, not \(YAMLNodes.kind(node))")
            return nil
        }
        do {
            return try expander.template(scalar.string)
        } catch {
            self.error(node, offset: error.offset, error.message)
            return nil
        }
    }

    private func parseRun(_ node: Node, context: String) -> RunAction? {
        var run = RunAction(argv: [], environment: [], cwd: nil, timeout: .seconds(10))
        var argvNode = node
        if case .mapping(let runMapping) = node {
            let items = entries(runMapping, allowed: Self.runKeys, context: "in 'run' \(context)")
            guard let argv = items.first(where: { $0.key == "argv" }) else {
                error(node, "'run' has no 'argv' \(context)")
                return nil
            }
            argvNode = argv.value
            for item in items {
                switch item.key {
                case "timeout": run.timeout = duration(item.value, "'timeout'") ?? run.timeout
                case "cwd": run.cwd = string(item.value, "'cwd'")?.value
                case "env":
                    guard let env = mapping(item.value, "'env'") else { continue }
                    for (nameNode, valueNode) in env {
                        guard let (name, _) = string(nameNode, "an environment variable name") else { continue }
                        if let value = template(valueNode, "the value of '\(name)'") {
                            run.environment.append(EnvironmentEntry(name: name, value: value))
                        }
                    }
                default: break
                }
            }
        }
        guard case .sequence(let list) = argvNode else {
            error(
                argvNode,
                "'run' must be a list of arguments (argv) or a mapping with 'argv', not \(YAMLNodes.kind(argvNode))")
            return nil
        }
        guard !list.isEmpty else {
            error(argvNode, "'run' has an empty argv \(context)")
            return nil
        }
        for item in list {
            guard let element = template(item, "an argv element") else { return nil }
            run.argv.append(element)
        }
        guard run.argv[0].isStatic else {
            error(
                list[list.startIndex],
                "the program '\(run.argv[0])' has a placeholder: write it literally "
                    + "(tag data may only be a later argument)")
            return nil
        }
        checkProgram(run.argv[0], node: list[list.startIndex])
        return run
    }

    /// Warns when a relative program is not on PATH (docs/rules.md, "`run`: commands": a warning, since PATH may differ at run time).
    private func checkProgram(_ program: Template, node: Node) {
        guard program.isStatic else { return }
        let name = program.staticPrefix
        if name.hasPrefix("/") { return }
        if name.contains("/") {
            warning(node, "program '\(name)' is a relative path; it depends on the router's working directory")
            return
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let found = path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
        }
        if !found { warning(node, "program '\(name)' is not found on PATH") }
    }

    private func parseWebhook(_ node: Node, context: String) -> WebhookAction? {
        guard let webhookMapping = mapping(node, "'webhook'") else { return nil }
        let items = entries(webhookMapping, allowed: Self.webhookKeys, context: "in 'webhook' \(context)")
        guard let urlItem = items.first(where: { $0.key == "url" }) else {
            error(node, "'webhook' has no 'url' \(context)")
            return nil
        }
        guard let url = template(urlItem.value, "'url'") else { return nil }
        let prefix = url.staticPrefix.lowercased()
        guard prefix.hasPrefix("http://") || prefix.hasPrefix("https://") else {
            let shown = url.isStatic ? url.description : (urlItem.value.scalar?.string ?? "")
            error(urlItem.value, "webhook url '\(shown)' is not http:// or https://")
            return nil
        }
        // The receiver is the rule's: its Authorization header and signature go wherever the host points.
        let authority = url.staticPrefix.drop { $0 != ":" }.dropFirst(3)
        if !url.isStatic, !authority.contains(where: { "/?#".contains($0) }) {
            error(
                urlItem.value,
                "webhook url '\(url)' has a placeholder in its host or port: write the receiver literally "
                    + "(placeholders may only go in the path and query)")
            return nil
        }
        var webhook = WebhookAction(
            url: url, method: "POST", headers: [], body: nil, bodyIsJSON: true, secret: nil, timeout: .seconds(5),
            retryFor: .seconds(86_400))
        for item in items {
            switch item.key {
            case "method":
                guard let (method, display) = string(item.value, "'method'") else { continue }
                let upper = method.uppercased()
                if upper.isEmpty || !upper.allSatisfy({ $0.isASCII && $0.isLetter }) {
                    error(item.value, "invalid HTTP method '\(display)'")
                }
                webhook.method = upper
            case "headers":
                guard let headers = mapping(item.value, "'headers'") else { continue }
                for (nameNode, valueNode) in headers {
                    guard let (name, _) = string(nameNode, "a header name") else { continue }
                    if name.isEmpty
                        || !name.allSatisfy({
                            $0.isASCII && ($0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0))
                        })
                    {
                        error(nameNode, "invalid header name '\(name)'")
                        continue
                    }
                    guard let value = template(valueNode, "header '\(name)'") else { continue }
                    if value.segments.contains(where: {
                        if case .literal(let text) = $0 { !HeaderField.isFieldValue(text) } else { false }
                    }) {
                        error(valueNode, "header '\(name)' contains a control character (only tab is allowed)")
                        continue
                    }
                    if name.lowercased() == "content-type", !value.staticPrefix.lowercased().contains("json") {
                        webhook.bodyIsJSON = false
                    }
                    webhook.headers.append(.init(name: name, value: value))
                }
            case "body": webhook.body = template(item.value, "'body'")
            case "secret": webhook.secret = template(item.value, "'secret'")
            case "timeout": webhook.timeout = duration(item.value, "'timeout'") ?? webhook.timeout
            case "retryFor": webhook.retryFor = duration(item.value, "'retryFor'") ?? webhook.retryFor
            case "tls", "proxy": parseTransport(item.key, item.value, into: &webhook.transport)
            default: break
            }
        }
        webhook.transport = webhook.transport.merged(over: defaultWebhookTransport)
        return webhook
    }
}
