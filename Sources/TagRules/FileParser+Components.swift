import AASAPatterns
import NDEF
import Yams

/// A component object as written (YAML or AASA JSON), before its patterns are compiled.
struct RawComponent {
    /// A pattern's text and the node to blame for problems in it (nil for patterns from an AASA file).
    struct Text {
        var text: String
        var node: Node?
    }

    /// What `?` holds as written.
    enum Query {
        case whole(Text)
        case items([(name: String, pattern: Text)])
    }

    var path: Text?
    var query: Query?
    var fragment: Text?
    var exclude = false
    var caseSensitive: Bool?
    var percentEncoded: Bool?
    var location: SourceLocation
}

extension FileParser {
    static let componentKeys = ["/", "?", "#", "exclude", "caseSensitive", "percentEncoded", "comment"]

    func parseComponents(_ node: Node, mode: MatchSubject.Mode, context: String) -> [ComponentObject]? {
        guard case .sequence(let list) = node else {
            error(node, "'components' must be a list of mappings, not \(YAMLNodes.kind(node))")
            return nil
        }
        var result: [ComponentObject] = []
        for item in list {
            guard let mapping = mapping(item, "a component object") else { continue }
            var raw = RawComponent(location: location(item))
            for entry in entries(mapping, allowed: Self.componentKeys, context: "in a component object \(context)") {
                switch entry.key {
                case "/": raw.path = patternText(entry.value, "'/'")
                case "#": raw.fragment = patternText(entry.value, "'#'")
                case "?":
                    if case .mapping(let items) = entry.value {
                        var pairs: [(String, RawComponent.Text)] = []
                        for (nameNode, valueNode) in items {
                            guard let (name, _) = string(nameNode, "a query item name"),
                                let pattern = patternText(valueNode, "query item '\(name)'")
                            else { continue }
                            pairs.append((name, pattern))
                        }
                        raw.query = .items(pairs)
                    } else if let text = patternText(entry.value, "'?'") {
                        raw.query = .whole(text)
                    }
                case "exclude": raw.exclude = bool(entry.value, "'exclude'") ?? false
                case "caseSensitive": raw.caseSensitive = bool(entry.value, "'caseSensitive'")
                case "percentEncoded": raw.percentEncoded = bool(entry.value, "'percentEncoded'")
                default: _ = string(entry.value, "'comment'")
                }
            }
            if let object = compile(raw, mode: mode, variables: variables, blame: item) { result.append(object) }
        }
        return result
    }

    /// Legacy AASA `paths`: `NOT ` excludes; path patterns only.
    func parsePaths(_ node: Node, mode: MatchSubject.Mode) -> [ComponentObject]? {
        guard let list = stringList(node, "'paths'") else { return nil }
        return list.compactMap { entry in
            var raw = RawComponent(location: location(entry.node))
            if entry.value.hasPrefix("NOT ") {
                raw.exclude = true
                raw.path = .init(text: String(entry.value.dropFirst(4)), node: entry.node)
            } else {
                raw.path = .init(text: entry.value, node: entry.node)
            }
            return compile(raw, mode: mode, variables: variables, blame: entry.node)
        }
    }

    private func patternText(_ node: Node, _ what: String) -> RawComponent.Text? {
        guard let (text, _) = string(node, "the pattern of \(what)") else { return nil }
        return .init(text: text, node: node)
    }

    /// Compiles a component object; pattern problems are blamed on the pattern's node, or on `blame`, or (a live
    /// association file has no node) reported at the object's location.
    func compile(_ raw: RawComponent, mode: MatchSubject.Mode, variables: [String: [String]], blame: Node?)
        -> ComponentObject?
    {
        let objectMode = MatchSubject.Mode(
            percentEncoded: raw.percentEncoded ?? mode.percentEncoded,
            caseSensitive: raw.caseSensitive ?? mode.caseSensitive)
        let compiler = PatternCompiler(
            variables: variables, foldsCase: !objectMode.caseSensitive, percentEncoded: objectMode.percentEncoded)
        var failed = false
        func pattern(_ text: RawComponent.Text?) -> Pattern? {
            compiled(text, compiler.compile)
        }
        func pathPattern(_ text: RawComponent.Text?) -> PathPattern? {
            compiled(text, compiler.compilePath)
        }
        func compiled<P>(_ text: RawComponent.Text?, _ compile: (String) throws(PatternCompiler.Failure) -> P) -> P? {
            guard let text else { return nil }
            do {
                return try compile(text.text)
            } catch {
                if let node = text.node {
                    self.error(node, offset: error.offset, error.message)
                } else if let blame {
                    self.error(blame, error.message)
                } else {
                    report(line: raw.location.line, column: raw.location.column, error.message)
                }
                failed = true
                return nil
            }
        }
        var object = ComponentObject(
            pattern: ComponentPattern(
                path: pathPattern(raw.path), query: nil, fragment: pattern(raw.fragment), mode: objectMode),
            isExcluding: raw.exclude, location: raw.location, summary: "")
        var summary: [String] = []
        if let path = raw.path { summary.append("\"/\": \(quoted(path.text))") }
        switch raw.query {
        case nil: break
        case .whole(let text):
            object.pattern.query = pattern(text).map { .whole($0) }
            summary.append("\"?\": \(quoted(text.text))")
        case .items(let items):
            var conditions: [QueryItemCondition] = []
            for (name, text) in items {
                if let compiled = pattern(text) {
                    conditions.append(QueryItemCondition(name: compiler.normalize(name), pattern: compiled))
                }
            }
            object.pattern.query = .items(conditions)
            summary.append(
                "\"?\": {" + items.map { "\(quoted($0.name)): \(quoted($0.pattern.text))" }.joined(separator: ", ")
                    + "}")
        }
        if let fragment = raw.fragment { summary.append("\"#\": \(quoted(fragment.text))") }
        if raw.exclude { summary.append("\"exclude\": true") }
        if let value = raw.caseSensitive { summary.append("\"caseSensitive\": \(value)") }
        if let value = raw.percentEncoded { summary.append("\"percentEncoded\": \(value)") }
        object.summary = "{" + summary.joined(separator: ", ") + "}"
        return failed ? nil : object
    }

    private func quoted(_ text: String) -> String {
        "\"" + PrintableText.json(text) + "\""
    }
}
