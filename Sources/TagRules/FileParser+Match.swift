import AASAPatterns
import Yams

extension FileParser {
    static let matchKeys = [
        "domains", "schemes", "components", "paths", "aasa", "appID", "uid", "mime", "external", "text", "reader",
        "tech", "any", "tags", "sun",
    ]
    static let techNames = ["type2", "type4", "type5", "mifare-classic", "felica", "iso14443-4", "type1"]

    /// Parses a rule's `match`; nil (after diagnostics) if invalid.
    func parseMatch(_ node: Node, keyNode: Node, context: String, mode: MatchSubject.Mode) -> MatchConditions? {
        guard let mapping = mapping(node, "'match' \(context)") else { return nil }
        let items = entries(mapping, allowed: Self.matchKeys, context: "in 'match' \(context)")
        if mapping.isEmpty {
            error(node.mark == nil ? keyNode : node, "empty 'match' \(context) (write 'any: true' to match every tag)")
            return nil
        }
        var conditions = MatchConditions()
        let byKey = Dictionary(items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let componentKeys = items.filter { ["components", "paths", "aasa"].contains($0.key) }
        if componentKeys.count > 1 {
            error(componentKeys[1].keyNode, "use only one of 'components', 'paths' and 'aasa' \(context)")
        }
        let isLive = byKey["aasa"].map { if case .mapping = $0.value { true } else { false } } ?? false
        if let first = componentKeys.first, byKey["domains"] == nil, byKey["schemes"] == nil, !isLive {
            error(first.keyNode, "'\(first.key)' requires 'domains' or 'schemes' \(context)")
        }
        if let appID = byKey["appID"], byKey["aasa"] == nil {
            error(appID.keyNode, "'appID' only goes with 'aasa' \(context)")
        }
        if let appID = byKey["appID"], isLive {
            error(appID.keyNode, "write 'appID' inside 'aasa' when it names a domain \(context)")
        }
        if let domains = byKey["domains"], isLive {
            error(domains.keyNode, "'aasa' with a 'domain' sets the rule's domain: remove 'domains' \(context)")
        }
        for item in items {
            let what = "'\(item.key)'"
            switch item.key {
            case "domains":
                conditions.domains = stringList(item.value, what)?.compactMap {
                    parseDomain($0.value, $0.display, $0.node)
                }
            case "schemes":
                conditions.schemes = stringList(item.value, what)?.compactMap { entry in
                    let scheme = entry.value.lowercased()
                    guard let first = scheme.first, first.isASCII, first.isLetter,
                        scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
                    else {
                        error(
                            entry.node,
                            "invalid scheme '\(entry.display)' (write it without ':', like 'https' or 'spotify')")
                        return nil
                    }
                    return scheme
                }
            case "components":
                conditions.components = parseComponents(item.value, mode: mode, context: context)
            case "paths":
                conditions.components = parsePaths(item.value, mode: mode)
            case "aasa":
                if isLive {
                    conditions.live = parseLiveAASA(item.value, context: context, mode: mode)
                } else {
                    conditions.components = importAASA(item.value, appID: byKey["appID"]?.value, mode: mode)
                }
            case "sun":
                conditions.sun = parseSUN(item.value, context: context)
            case "tags":
                conditions.tags = stringList(item.value, what).map { entries in
                    if entries.isEmpty { error(item.value, "'tags' is empty \(context) (name groups or tags)") }
                    for entry in entries where !enrolledNames.contains(entry.value) {
                        warning(
                            entry.node,
                            "'tags': '\(entry.display)' names no enrolled tag and no group of the tags file; the rule "
                                + "refuses every tag until one is enrolled (tagrouter learn --group \(entry.display))")
                    }
                    return Set(entries.map(\.value))
                }
            case "uid":
                conditions.uids = stringList(item.value, what).map { Set($0.compactMap(parseUID)) }
            case "mime":
                conditions.mime = stringList(item.value, what)?.compactMap(parseMIME)
            case "external":
                conditions.external = stringList(item.value, what).map {
                    Set(
                        $0.compactMap { entry in
                            let parts = entry.value.split(separator: ":", omittingEmptySubsequences: false)
                            guard parts.count >= 2, parts.allSatisfy({ !$0.isEmpty }) else {
                                error(
                                    entry.node,
                                    "external type '\(entry.display)' must be 'domain:type', like 'android.com:pkg'")
                                return nil
                            }
                            return entry.value.lowercased()
                        })
                }
            case "text", "reader":
                guard let (text, _) = string(item.value, what) else { continue }
                let compiler = PatternCompiler(
                    variables: variables, foldsCase: !mode.caseSensitive, percentEncoded: false)
                do {
                    let pattern = try compiler.compile(text)
                    if item.key == "text" { conditions.text = pattern } else { conditions.reader = pattern }
                } catch {
                    self.error(item.value, offset: error.offset, error.message)
                }
            case "tech":
                conditions.tech = stringList(item.value, what).map {
                    Set(
                        $0.compactMap { entry in
                            guard Self.techNames.contains(entry.value) else {
                                let hint =
                                    Suggestion.closest(to: entry.value, in: Self.techNames).map {
                                        " (did you mean '\($0)'?)"
                                    } ?? ""
                                error(
                                    entry.node,
                                    "unknown tech '\(entry.display)'\(hint); expected one of \(Self.techNames.joined(separator: ", "))"
                                )
                                return nil
                            }
                            return entry.value
                        })
                }
            case "any":
                if let value = bool(item.value, what) {
                    if value { conditions.any = true } else { error(item.value, "'any' can only be true \(context)") }
                }
            default:
                break
            }
        }
        if let live = conditions.live {
            conditions.domains = [DomainPattern(host: live.domain, isWildcard: false, port: nil)]
            conditions.unavailable = MatchConditions.notFetched(live.domain)
        }
        return conditions
    }

    /// Parses one `domains` entry.
    func parseDomain(_ text: String, _ display: String, _ node: Node) -> DomainPattern? {
        if text.contains("://") || text.lowercased().hasPrefix("http:") || text.lowercased().hasPrefix("https:") {
            error(node, "domain '\(display)' must not contain a scheme (use 'schemes')")
            return nil
        }
        if text.contains(where: { "/?#".contains($0) }) {
            error(node, "domain '\(display)' must not contain a path, query or fragment (use 'components')")
            return nil
        }
        var host = Substring(text)
        var isWildcard = false
        if host.hasPrefix("*.") {
            isWildcard = true
            host = host.dropFirst(2)
        }
        if host.contains("*") {
            error(node, "domain '\(display)' has a wildcard other than a leading '*.'")
            return nil
        }
        var port: Int?
        if let colon = host.lastIndex(of: ":") {
            let portText = host[host.index(after: colon)...]
            guard let value = Int(portText), portText.allSatisfy(\.isASCII), value >= 1, value <= 65535 else {
                error(node, "invalid port '\(portText)' in domain '\(display)' (expected 1 to 65535)")
                return nil
            }
            port = value
            host = host[..<colon]
        }
        let normalized: String?
        if host.utf8.allSatisfy({ $0 < 0x80 }) {
            let valid =
                !host.isEmpty
                && host.utf8.allSatisfy {
                    URIText.isAlpha($0) || URIText.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                        || $0 == UInt8(ascii: "_")
                }
            normalized = valid ? URIText.asciiLowercased(host.utf8) : nil
        } else {
            normalized = ParsedURI.idnaHost(String(host))
        }
        guard let normalized, !normalized.hasPrefix("."), !normalized.hasSuffix("."), !normalized.contains("..") else {
            error(node, "invalid domain '\(display)' (expected a host name like example.com or *.example.com)")
            return nil
        }
        return DomainPattern(host: normalized, isWildcard: isWildcard, port: port)
    }

    func parseUID(_ entry: (value: String, display: String, node: Node)) -> String? {
        let digits = entry.value.filter { !":- ".contains($0) }
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit), digits.allSatisfy(\.isASCII) else {
            error(entry.node, "UID '\(entry.display)' is not hex (expected like 04A1B2C3D4E580 or 04:a1:b2:c3)")
            return nil
        }
        guard digits.count.isMultiple(of: 2) else {
            error(entry.node, "UID '\(entry.display)' has an odd number of hex digits")
            return nil
        }
        return digits.uppercased()
    }

    private func parseMIME(_ entry: (value: String, display: String, node: Node)) -> MIMEPattern? {
        let parts = entry.value.lowercased().split(separator: "/", omittingEmptySubsequences: false)
        func isToken(_ text: Substring) -> Bool {
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$&-^_.+".contains($0)) }
        }
        guard parts.count == 2, isToken(parts[0]), parts[1] == "*" || isToken(parts[1]) else {
            error(entry.node, "malformed MIME type '\(entry.display)' (expected type/subtype or type/*)")
            return nil
        }
        return MIMEPattern(type: String(parts[0]), subtype: parts[1] == "*" ? nil : String(parts[1]))
    }
}
