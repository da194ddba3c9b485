import AASAPatterns
import Foundation
import Yams

extension FileParser {
    /// Reads the `components` (or legacy `paths`) of an apple-app-site-association file (docs/rules.md, "Importing an
    /// AASA file"). Its `defaults` apply as Apple applies them: a component's own `caseSensitive` and
    /// `percentEncoded` over its `details` entry's `defaults`, over the file's `applinks.defaults`, over the rule's.
    func importAASA(_ node: Node, appID appIDNode: Node?, mode: MatchSubject.Mode) -> [ComponentObject]? {
        guard let (path, display) = string(node, "'aasa'") else { return nil }
        let appID = appIDNode.flatMap { string($0, "'appID'")?.value }
        let fullPath = path.hasPrefix("/") ? path : directory + "/" + path
        guard let data = FileManager.default.contents(atPath: fullPath) else {
            error(node, "cannot read AASA file '\(display)' (looked for \(path.hasPrefix("/") ? path : fullPath))")
            return nil
        }
        guard data.count <= 1 << 20 else {
            error(node, "AASA file '\(display)' is larger than 1 MiB")
            return nil
        }
        func invalid(_ why: String) -> [ComponentObject]? {
            error(node, "'\(display)' is not a valid AASA file: \(why)")
            return nil
        }
        guard let json = try? JSONSerialization.jsonObject(with: data) else { return invalid("not valid JSON") }
        guard let top = json as? [String: Any], let applinks = top["applinks"] as? [String: Any] else {
            return invalid("no 'applinks' object")
        }
        guard let details = applinks["details"] as? [[String: Any]] else {
            return invalid("'applinks.details' is not a list of objects")
        }
        var fileVariables = variables
        if let extra = applinks["substitutionVariables"] as? [String: [String]] {
            fileVariables.merge(extra) { _, new in new }
        }
        let chosen = details.filter { entry in
            guard let appID else { return true }
            let ids = (entry["appIDs"] as? [String] ?? []) + [entry["appID"] as? String].compactMap { $0 }
            return ids.contains(appID)
        }
        if chosen.isEmpty {
            return invalid(appID.map { "no 'details' entry for appID '\($0)'" } ?? "'applinks.details' is empty")
        }
        guard let fileMode = Self.defaults(applinks["defaults"], over: mode) else {
            return invalid("'applinks.defaults' must be an object of 'caseSensitive' and 'percentEncoded' booleans")
        }
        var objects: [ComponentObject] = []
        let importLocation = location(node)
        for entry in chosen {
            guard let mode = Self.defaults(entry["defaults"], over: fileMode) else {
                return invalid(
                    "a 'details' entry's 'defaults' must be an object of 'caseSensitive' and 'percentEncoded' booleans")
            }
            if let components = entry["components"] as? [[String: Any]] {
                for component in components {
                    guard let raw = rawComponent(component, location: importLocation) else {
                        return invalid("a component object has a key of the wrong type")
                    }
                    guard let object = compile(raw, mode: mode, variables: fileVariables, blame: node) else {
                        return nil
                    }
                    objects.append(object)
                }
            } else if let paths = entry["paths"] as? [String] {
                for path in paths {
                    var raw = RawComponent(location: importLocation)
                    raw.exclude = path.hasPrefix("NOT ")
                    raw.path = .init(text: raw.exclude ? String(path.dropFirst(4)) : path, node: nil)
                    guard let object = compile(raw, mode: mode, variables: fileVariables, blame: node) else {
                        return nil
                    }
                    objects.append(object)
                }
            } else {
                return invalid("a 'details' entry has neither 'components' nor 'paths'")
            }
        }
        return objects
    }

    /// The mode an AASA `defaults` object sets over `base`; nil when it is not an object of booleans. Keys other
    /// than `caseSensitive` and `percentEncoded` are ignored, as Apple ignores keys it does not know.
    static func defaults(_ value: Any?, over base: MatchSubject.Mode) -> MatchSubject.Mode? {
        guard let value else { return base }
        guard let object = value as? [String: Any] else { return nil }
        var mode = base
        for (key, setting) in object where key == "caseSensitive" || key == "percentEncoded" {
            guard let flag = setting as? Bool else { return nil }
            if key == "caseSensitive" { mode.caseSensitive = flag } else { mode.percentEncoded = flag }
        }
        return mode
    }

    private func rawComponent(_ object: [String: Any], location: SourceLocation) -> RawComponent? {
        var raw = RawComponent(location: location)
        for (key, value) in object {
            switch key {
            case "/":
                guard let text = value as? String else { return nil }
                raw.path = .init(text: text, node: nil)
            case "#":
                guard let text = value as? String else { return nil }
                raw.fragment = .init(text: text, node: nil)
            case "?":
                if let text = value as? String {
                    raw.query = .whole(.init(text: text, node: nil))
                } else if let items = value as? [String: String] {
                    raw.query = .items(
                        items.sorted { $0.key < $1.key }.map { ($0.key, .init(text: $0.value, node: nil)) })
                } else {
                    return nil
                }
            case "exclude": raw.exclude = value as? Bool ?? false
            case "caseSensitive": raw.caseSensitive = value as? Bool
            case "percentEncoded": raw.percentEncoded = value as? Bool
            default: break
            }
        }
        return raw
    }
}
