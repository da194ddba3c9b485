import AASAPatterns
import Foundation
import NDEF
import SUNMessage
import Yams

extension FileParser {
    /// Parses a rule's `when` (docs/doors.md, "Time windows"): a list of windows, each with `days`, `time` or
    /// both.
    func parseWhen(_ node: Node, context: String) -> [TimeWindow]? {
        guard case .sequence(let list) = node else {
            error(
                node,
                "'when' must be a list of windows, not \(YAMLNodes.kind(node)) (write - { time: \"07:00-19:00\" })")
            return nil
        }
        if list.isEmpty { error(node, "'when' is empty \(context) (give at least one window)") }
        var windows: [TimeWindow] = []
        for item in list {
            guard let mapping = mapping(item, "a window of 'when'") else { continue }
            let entries = entries(mapping, allowed: ["days", "time"], context: "in a window of 'when' \(context)")
            if entries.isEmpty {
                error(item, "a window of 'when' needs 'days', 'time' or both \(context)")
                continue
            }
            var window = TimeWindow(days: nil, start: 0, end: 1440)
            var valid = true
            for entry in entries {
                if entry.key == "days" {
                    guard let days = stringList(entry.value, "'days'") else {
                        valid = false
                        continue
                    }
                    var set = Set<Int>()
                    for day in days {
                        guard let index = TimeWindow.dayNames.firstIndex(of: day.value.lowercased()) else {
                            error(
                                day.node,
                                "unknown day '\(day.display)' (expected \(TimeWindow.dayNames.joined(separator: ", ")))"
                            )
                            valid = false
                            continue
                        }
                        set.insert(index + 1)
                    }
                    if days.isEmpty {
                        error(entry.value, "'days' is empty \(context)")
                        valid = false
                    }
                    window.days = set
                } else {
                    guard let (text, display) = string(entry.value, "'time'") else {
                        valid = false
                        continue
                    }
                    guard let span = TimeWindow.parseSpan(text), span.start != span.end else {
                        error(
                            entry.value,
                            "'time' '\(display)' is not a span like \"07:00-19:00\" or \"22:00-06:00\" (HH:MM-HH:MM, "
                                + "24:00 as an end, start and end different)")
                        valid = false
                        continue
                    }
                    (window.start, window.end) = span
                }
            }
            if valid { windows.append(window) }
        }
        return windows
    }

    /// Parses a `timeZone`: a name of the tz database.
    func parseTimeZone(_ node: Node) -> TimeZone? {
        guard let (name, display) = string(node, "'timeZone'") else { return nil }
        guard let zone = TimeZone(identifier: name), name.contains("/") || name == "UTC" || name == "GMT" else {
            let hint = Suggestion.closest(to: name, in: TimeZone.knownTimeZoneIdentifiers).map {
                " (did you mean '\($0)'?)"
            }
            error(node, "unknown time zone '\(display)'\(hint ?? "") (write a tz database name like Europe/Berlin)")
            return nil
        }
        return zone
    }

    /// Parses a rule's `denied:` block: the action keys of a rule (docs/doors.md, "Refusals").
    func parseDenied(_ node: Node, context: String) -> [Action]? {
        guard let mapping = mapping(node, "'denied'") else { return nil }
        let actionKeys = ["run", "open", "webhook", "mqtt", "type", "actions"]
        let items = entries(mapping, allowed: actionKeys, context: "in 'denied' \(context)")
        if items.isEmpty {
            error(node, "'denied' has no action \(context) (add 'run', 'open', 'webhook', 'mqtt' or 'actions')")
            return nil
        }
        var actions: [Action] = []
        for item in items {
            if item.key == "actions" {
                actions += parseActionList(item.value, context: context)
            } else if let action = parseAction(item.key, item.value, context: context) {
                actions.append(action)
            }
        }
        return actions
    }

    // MARK: The tags file

    static let tagsFileKeys = ["version", "tags"]
    static let tagEntryKeys = ["name", "uid", "sun", "groups", "validFrom", "validUntil", "disabled", "note"]

    /// Parses the tags file (docs/doors.md, "The tags file") into ``tagEntries``.
    func parseTagsFile(_ root: Node?) {
        guard let root else { return }
        guard let top = mapping(root, "a tags file") else { return }
        let items = entries(top, allowed: Self.tagsFileKeys, context: "at the top level of the tags file")
        let byKey = Dictionary(items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        checkVersion(byKey["version"]?.value, in: root)
        guard let list = byKey["tags"] else {
            error(root, "missing 'tags' (a list of tags)")
            return
        }
        if case .scalar(let scalar) = list.value, YAMLNodes.isNull(scalar) { return }
        guard case .sequence(let sequence) = list.value else {
            error(list.value, "'tags' must be a list, not \(YAMLNodes.kind(list.value))")
            return
        }
        var names: [String: SourceLocation] = [:]
        var uids: [String: (String, SourceLocation)] = [:]
        for node in sequence {
            guard let tag = parseTagEntry(node) else { continue }
            if let first = names[tag.name] {
                error(node, "duplicate tag name '\(PrintableText.line(tag.name))' (first defined at \(first))")
                continue
            }
            if let (name, first) = uids[tag.uid] {
                error(
                    node,
                    "UID \(tag.uid) is enrolled twice (first as '\(PrintableText.line(name))' at \(first))")
                continue
            }
            names[tag.name] = tag.location
            uids[tag.uid] = (tag.name, tag.location)
            tagEntries.append(tag)
        }
    }

    /// A scalar's text as written: the tags file expands no `${NAME}` (a name is not a secret).
    private func plainString(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let scalar) = node, !YAMLNodes.isNull(scalar) else {
            error(node, "\(what) must be a string, not \(YAMLNodes.kind(node))")
            return nil
        }
        return scalar.string
    }

    private func parseTagEntry(_ node: Node) -> KnownTag? {
        guard let mapping = mapping(node, "a tag") else { return nil }
        let errorsBefore = diagnostics.count { $0.severity == .error }
        let context = "in tag #\(tagEntries.count + 1)"
        let items = entries(mapping, allowed: Self.tagEntryKeys, context: context)
        var name: String?
        var uid: String?
        var tag = KnownTag(name: "", uid: "", location: location(node))
        for item in items {
            switch item.key {
            case "name":
                guard let value = plainString(item.value, "a tag's 'name'") else { continue }
                if value.isEmpty { error(item.value, "a tag's 'name' is empty") }
                name = value
                tag.location = location(item.value)
            case "uid":
                guard let value = plainString(item.value, "a tag's 'uid'") else { continue }
                uid = parseUID((value, value, item.value))
            case "sun":
                error(
                    item.keyNode,
                    "'sun' (tags identified by a verified SUN message) is not supported yet; enroll the tag by 'uid'")
            case "groups":
                guard case .sequence(let list) = item.value else {
                    error(item.value, "'groups' must be a list, not \(YAMLNodes.kind(item.value)) (write [staff])")
                    continue
                }
                tag.groups = list.compactMap { entry in
                    guard let group = plainString(entry, "a group") else { return nil }
                    if group.isEmpty { error(entry, "a group name is empty") }
                    return group.isEmpty ? nil : group
                }
            case "validFrom", "validUntil":
                guard let value = plainString(item.value, "'\(item.key)'") else { continue }
                guard let day = CalendarDay(value) else {
                    error(
                        item.value,
                        "'\(item.key)' '\(PrintableText.line(value))' is not a day like 2026-12-01 (YYYY-MM-DD)")
                    continue
                }
                if item.key == "validFrom" { tag.validFrom = day } else { tag.validUntil = day }
            case "disabled":
                tag.disabled = bool(item.value, "'disabled'") ?? false
            default:
                tag.note = plainString(item.value, "'note'")
            }
        }
        if name == nil, mapping["name"] == nil { error(node, "\(context) has no 'name'") }
        if uid == nil, mapping["uid"] == nil, mapping["sun"] == nil { error(node, "\(context) has no 'uid'") }
        if let from = tag.validFrom, let until = tag.validUntil, until < from {
            error(node, "\(context): 'validUntil' \(until) is before 'validFrom' \(from)")
        }
        guard diagnostics.count(where: { $0.severity == .error }) == errorsBefore, let name, let uid else {
            return nil
        }
        tag.name = name
        tag.uid = uid
        return tag
    }
}

extension FileParser {
    static let sunKeys = [
        "piccData", "mac", "encData", "uid", "counter", "metaReadKey", "fileReadKey", "diversify", "macInput",
    ]

    /// Parses a `sun:` condition (docs/doors.md, "SUN: tags that prove themselves"). The keys must come from
    /// `${VAR}`, are checked for length, and are never shown.
    func parseSUN(_ node: Node, context: String) -> SUNCondition? {
        guard let mapping = mapping(node, "'sun'") else { return nil }
        let items = entries(mapping, allowed: Self.sunKeys, context: "in 'sun' \(context)")
        var names: [String: String] = [:]
        var keys: [String: [UInt8]] = [:]
        var valid = true
        var diversification: [UInt8]?
        var macInput = SUNMACInput.url
        var macInputNode: Node?
        for item in items {
            if item.key == "macInput" {
                guard let (value, display) = string(item.value, "'macInput'") else {
                    valid = false
                    continue
                }
                guard let mode = SUNMACInput(rawValue: value) else {
                    error(item.value, "'macInput' is url, fileData or none, not '\(display)' \(context)")
                    valid = false
                    continue
                }
                macInput = mode
                macInputNode = item.value
                if !mode.coversURL { partialSUN = (item.value, mode.rawValue) }
                continue
            }
            if item.key == "diversify" {
                diversification = parseDiversification(item.value, context: context)
                valid = valid && diversification != nil
                continue
            }
            guard let (value, display) = string(item.value, "'\(item.key)'") else {
                valid = false
                continue
            }
            if item.key.hasSuffix("Key") {
                // A key written in the file would be shown wherever the file is: only ${VAR} is taken.
                // Exactly one ${NAME}: a default (${NAME:-…}) or text around it would put key material in the file.
                let isVariable =
                    display.hasPrefix("${") && display.hasSuffix("}")
                    && display.dropFirst(2).dropLast().allSatisfy {
                        $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")
                    }
                guard isVariable else {
                    error(
                        item.value,
                        "'\(item.key)' must come from the environment, like \"${DOOR_KEY}\" (a key written in the "
                            + "rules file would be shown wherever the file is)")
                    valid = false
                    continue
                }
                guard let key = HexText.bytes(value), key.count == 16 else {
                    error(
                        item.value,
                        "'\(item.key)' (\(display)) must be 16 bytes written as 32 hex digits; the value is not")
                    valid = false
                    continue
                }
                keys[item.key] = key
            } else {
                guard !value.isEmpty, !value.contains(where: { "&=#?".contains($0) }) else {
                    error(item.value, "'\(item.key)' must name a query item, like 'p'")
                    valid = false
                    continue
                }
                names[item.key] = value
            }
        }
        let isPlain = names["uid"] != nil || names["counter"] != nil
        if names["mac"] == nil { error(node, "'sun' needs 'mac' (the query item holding the MAC) \(context)") }
        if keys["fileReadKey"] == nil, mapping["fileReadKey"] == nil {
            error(node, "'sun' needs 'fileReadKey' \(context)")
        }
        if isPlain {
            if names["uid"] == nil || names["counter"] == nil {
                error(node, "'sun' in plain mirroring needs both 'uid' and 'counter' \(context)")
            }
            if names["piccData"] != nil || names["encData"] != nil {
                error(node, "'sun' has either 'piccData' (encrypted) or 'uid' and 'counter' (plain) \(context)")
            }
        } else {
            if names["piccData"] == nil {
                error(node, "'sun' needs 'piccData', or 'uid' and 'counter' for plain mirroring \(context)")
            }
            if keys["metaReadKey"] == nil, mapping["metaReadKey"] == nil {
                error(node, "'sun' with 'piccData' needs 'metaReadKey' \(context)")
            }
        }
        switch macInput {
        case .fileData where names["encData"] == nil:
            error(
                macInputNode ?? node,
                "'macInput: fileData' needs 'encData' (the item the MAC input starts at) \(context)")
            valid = false
        case .none where names["encData"] != nil:
            error(
                macInputNode ?? node,
                "'macInput: none' leaves the file data unproved; with 'encData' the MAC must cover it (url or "
                    + "fileData) \(context)")
            valid = false
        default: break
        }
        guard valid, let mac = names["mac"], let fileReadKey = keys["fileReadKey"],
            isPlain || (names["piccData"] != nil && keys["metaReadKey"] != nil)
        else { return nil }
        let metaReadKey = isPlain ? nil : keys["metaReadKey"]
        return SUNCondition(
            piccItem: isPlain ? nil : names["piccData"], uidItem: names["uid"], counterItem: names["counter"],
            macItem: mac, encItem: names["encData"], metaReadKey: metaReadKey, fileReadKey: fileReadKey,
            diversification: diversification,
            keySetID: SUNCondition.keySetID(
                metaReadKey: metaReadKey, fileReadKey: fileReadKey, diversification: diversification),
            macInput: macInput)
    }

    /// Parses `diversify: { applicationID: "3042F5", systemIdentifier: "4E585020416275" }`: NXP AN10922's input
    /// after the 7-byte UID, so that the whole input is 16 to 30 bytes.
    private func parseDiversification(_ node: Node, context: String) -> [UInt8]? {
        guard let mapping = mapping(node, "'diversify'") else { return nil }
        let items = entries(
            mapping, allowed: ["applicationID", "systemIdentifier"], context: "in 'diversify' \(context)")
        var parts: [String: [UInt8]] = [:]
        for item in items {
            guard let (value, display) = string(item.value, "'\(item.key)'") else { return nil }
            guard let bytes = HexText.bytes(value) else {
                error(item.value, "'\(item.key)' '\(display)' is not hex")
                return nil
            }
            parts[item.key] = bytes
        }
        guard let applicationID = parts["applicationID"], applicationID.count == 3 else {
            error(node, "'diversify' needs 'applicationID', 3 bytes as 6 hex digits \(context)")
            return nil
        }
        let systemIdentifier = parts["systemIdentifier"] ?? []
        guard (6...20).contains(systemIdentifier.count) else {
            error(
                node,
                "'diversify' needs 'systemIdentifier' of 6 to 20 bytes, so that AN10922's input (UID, application "
                    + "ID, system identifier) is 16 to 30 bytes \(context)")
            return nil
        }
        return applicationID + systemIdentifier
    }
}
