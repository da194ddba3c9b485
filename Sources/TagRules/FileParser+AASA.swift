import AASAPatterns
import Foundation
import Yams

extension FileParser {
    /// Reads the `components` (or legacy `paths`) of an apple-app-site-association file (docs/rules.md, "Importing an
    /// AASA file"). Its `defaults` apply as Apple applies them: a `defaults` object is a component whose keys
    /// (`/`, `?`, `#`, `exclude`, `caseSensitive`, `percentEncoded`) every component under it inherits unless it
    /// sets them itself; a `details` entry's `defaults` win over the file's `applinks.defaults`, and the file's
    /// `caseSensitive` and `percentEncoded` over the rule's.
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
        return aasaComponents(
            data, appID: appID, mode: mode, variables: variables, location: location(node), blame: node
        ) {
            error(node, "'\(display)' is not a valid AASA file: \($0)")
        }
    }

    /// The components of an AASA document for `appID` (every `details` entry when nil): the one code path of a local
    /// `aasa:` file and of a live one (docs/rules.md, "Live association files").
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - appID: the app whose entries are used.
    ///   - mode: the rule's comparison settings, under the file's defaults.
    ///   - variables: the rules file's substitution variables, which the file's own extend.
    ///   - importLocation: where `aasa` is written (the location of every component).
    ///   - blame: the node pattern errors are reported at; without one, at `importLocation`.
    ///   - invalid: called with the reason when the document is not a usable AASA file.
    /// - Returns: the component objects, or nil after `invalid` or a pattern diagnostic.
    func aasaComponents(
        _ data: Data, appID: String?, mode: MatchSubject.Mode, variables: [String: [String]],
        location importLocation: SourceLocation, blame node: Node?, invalid report: (String) -> Void
    ) -> [ComponentObject]? {
        func invalid(_ why: String) -> [ComponentObject]? {
            report(why)
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
        if let value = applinks["substitutionVariables"] {
            guard let extra = value as? [String: [String]] else {
                return invalid("'applinks.substitutionVariables' is not an object of string lists")
            }
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
        var objects: [ComponentObject] = []
        let none = Inherited(raw: RawComponent(location: importLocation), setsExclude: false)
        guard let fileDefaults = inherited(applinks["defaults"], over: none, location: importLocation) else {
            return invalid("'applinks.defaults' is not a component object, or has a key of the wrong type")
        }
        for entry in chosen {
            guard let defaults = inherited(entry["defaults"], over: fileDefaults, location: importLocation) else {
                return invalid(
                    "a 'details' entry's 'defaults' is not a component object, or has a key of the wrong type")
            }
            let entryMode = MatchSubject.Mode(
                percentEncoded: defaults.raw.percentEncoded ?? mode.percentEncoded,
                caseSensitive: defaults.raw.caseSensitive ?? mode.caseSensitive)
            if let components = entry["components"] as? [[String: Any]] {
                for component in components {
                    guard let own = rawComponent(component, location: importLocation) else {
                        return invalid("a component object has a key of the wrong type")
                    }
                    let raw = defaults.applied(to: own, setsExclude: component["exclude"] != nil)
                    guard let object = compile(raw, mode: entryMode, variables: fileVariables, blame: node) else {
                        return nil
                    }
                    objects.append(object)
                }
            } else if let paths = entry["paths"] as? [String] {
                for path in paths {
                    var raw = RawComponent(location: importLocation)
                    raw.exclude = path.hasPrefix("NOT ")
                    raw.path = .init(text: raw.exclude ? String(path.dropFirst(4)) : path, node: nil)
                    guard let object = compile(raw, mode: entryMode, variables: fileVariables, blame: node) else {
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

    /// What an AASA `defaults` object sets, and whether it sets `exclude` (a `RawComponent` always has one).
    struct Inherited {
        var raw: RawComponent
        var setsExclude: Bool

        /// `own` with every key it does not set taken from these defaults.
        func applied(to own: RawComponent, setsExclude ownExclude: Bool) -> RawComponent {
            var result = own
            result.path = own.path ?? raw.path
            result.query = own.query ?? raw.query
            result.fragment = own.fragment ?? raw.fragment
            if !ownExclude, setsExclude { result.exclude = raw.exclude }
            result.caseSensitive = own.caseSensitive ?? raw.caseSensitive
            result.percentEncoded = own.percentEncoded ?? raw.percentEncoded
            return result
        }
    }

    /// The defaults a `defaults` value sets over `base`; nil when it is not an object, or a key has the wrong
    /// type. Keys other than a component's are ignored, as Apple ignores keys it does not know.
    func inherited(_ value: Any?, over base: Inherited, location: SourceLocation) -> Inherited? {
        guard let value else { return base }
        guard let object = value as? [String: Any], let own = rawComponent(object, location: location) else {
            return nil
        }
        let setsExclude = object["exclude"] != nil
        return Inherited(
            raw: base.applied(to: own, setsExclude: setsExclude), setsExclude: setsExclude || base.setsExclude)
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
            case "exclude":
                guard let flag = value as? Bool else { return nil }
                raw.exclude = flag
            case "caseSensitive":
                guard let flag = value as? Bool else { return nil }
                raw.caseSensitive = flag
            case "percentEncoded":
                guard let flag = value as? Bool else { return nil }
                raw.percentEncoded = flag
            default: break
            }
        }
        return raw
    }
}
