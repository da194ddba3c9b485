import AASAPatterns
import WebhookTarget
import Yams

extension FileParser {
    static let topKeys = [
        "version", "defaults", "substitutionVariables", "rules", "mqtt", "readers", "history", "console",
    ]
    static let defaultsKeys = ["caseSensitive", "percentEncoded", "cooldown", "webhook", "timeZone"]

    /// Parses the whole file.
    func parseFile(_ root: Node?) {
        guard let root else {
            report(line: 0, column: 0, "the file is empty (expected a mapping with 'version: 1' and 'rules')")
            return
        }
        guard let top = mapping(root, "a rules file") else { return }
        let items = entries(top, allowed: Self.topKeys, context: "at the top level")
        let byKey = Dictionary(items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        checkVersion(byKey["version"]?.value, in: root)
        if let defaults = byKey["defaults"], let mapping = mapping(defaults.value, "'defaults'") {
            for entry in entries(mapping, allowed: Self.defaultsKeys, context: "in 'defaults'") {
                switch entry.key {
                case "caseSensitive": defaultCaseSensitive = bool(entry.value, "'caseSensitive'") ?? true
                case "percentEncoded": defaultPercentEncoded = bool(entry.value, "'percentEncoded'") ?? true
                case "webhook": defaultWebhookTransport = parseWebhookDefaults(entry.value)
                case "timeZone": defaultTimeZone = parseTimeZone(entry.value) ?? defaultTimeZone
                default: defaultCooldown = duration(entry.value, "'cooldown'") ?? .seconds(2)
                }
            }
        }
        if let substitution = byKey["substitutionVariables"] {
            parseVariables(substitution.value)
        }
        if let mqtt = byKey["mqtt"] {
            parseMQTTBlock(mqtt.value, keyNode: mqtt.keyNode)
        }
        if let readers = byKey["readers"] {
            parseReaders(readers.value)
        }
        if let history = byKey["history"] {
            parseHistoryBlock(history.value, keyNode: history.keyNode)
        }
        if let console = byKey["console"] {
            parseConsoleBlock(console.value, keyNode: console.keyNode)
        }
        guard let rulesEntry = byKey["rules"] else {
            error(root, "missing 'rules' (a list of rules)")
            return
        }
        guard case .sequence(let list) = rulesEntry.value else {
            error(rulesEntry.value, "'rules' must be a list, not \(YAMLNodes.kind(rulesEntry.value))")
            return
        }
        for node in list {
            ruleCount += 1
            if let rule = parseRule(node) { rules.append(rule) }
        }
    }

    /// Reports a missing `version`, or one other than 1 (rules files and the tags file alike).
    /// - Parameters:
    ///   - version: the `version` value, if the file has one.
    ///   - root: the file's top node, where a missing version is reported.
    func checkVersion(_ version: Node?, in root: Node) {
        guard let version else {
            error(root, "missing 'version: 1'")
            return
        }
        if version.scalar?.string != "1" {
            error(version, "unknown version '\(version.scalar?.string ?? YAMLNodes.kind(version))' (expected 1)")
        }
    }

    private func parseVariables(_ node: Node) {
        guard let mapping = mapping(node, "'substitutionVariables'") else { return }
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.string,
                !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            else {
                error(keyNode, "substitution variable names are letters, digits and '_'")
                continue
            }
            if CharacterClass(rawValue: name) != nil || name == "lang" || name == "region" {
                error(keyNode, "'\(name)' is a predefined substitution variable and cannot be redefined")
                continue
            }
            guard let values = stringList(value, "substitution variable '\(name)'") else { continue }
            if values.isEmpty {
                error(value, "substitution variable '\(name)' needs at least one value")
                continue
            }
            variables[name] = values.map(\.value)
        }
    }
}
