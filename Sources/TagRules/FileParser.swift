import AASAPatterns
import Foundation
import WebhookTarget
import Yams

/// Turns one rules file's YAML nodes into rules, collecting a diagnostic for every problem (docs/development.md, "Conventions").
final class FileParser {
    let file: String
    let directory: String
    let text: String
    /// The file's lines, split only when a diagnostic needs one.
    lazy var lines: [Substring] = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    let expander: TemplateParser
    let environment: [String: String]
    var diagnostics: [Diagnostic] = []
    var rules: [Rule] = []
    var ruleCount = 0
    /// The `open` actions of the rule being parsed, with their nodes (for the scheme warning of `parseRule`).
    var openSites: [(uri: Template, node: Node)] = []
    /// The `type` actions of the rule being parsed, for the warning about text a stranger's tag chooses.
    var typeSites: [(text: Template, node: Node)] = []
    /// The `macInput` of the rule being parsed when its `sun` MAC does not cover the URL (for the warning about
    /// the placeholders the tag chooses, `parseRule`).
    var partialSUN: (node: Node, mode: String)?
    /// Rule names already taken, across files.
    var knownNames: [String: SourceLocation]

    // File-level settings.
    var variables: [String: [String]] = [:]
    var defaultCaseSensitive = true
    var defaultPercentEncoded = true
    var defaultCooldown: Duration = .seconds(2)
    /// The file's `defaults: { webhook: … }`.
    var defaultWebhookTransport = WebhookTransport()
    /// The file's `defaults: { timeZone: … }`.
    var defaultTimeZone: TimeZone?

    // Readers (docs/rules.md, "`readers:`: what the reader shows").
    /// This file's `readers:` entries.
    var readers: [ReaderSettings] = []
    /// The reader name patterns already listed, across files, and where.
    var readerNames: [String: SourceLocation] = [:]

    // Doors (docs/doors.md, "Doors").
    /// The entries of the tags file, when this parser reads one.
    var tagEntries: [KnownTag] = []
    /// Every enrolled name and group, for the warning about a `tags` entry that names none.
    var enrolledNames: Set<String> = []

    // MQTT (docs/rules.md, "`mqtt:`: the broker").
    /// Where the rule set's `mqtt:` block is, if an earlier file (or this one) has one.
    var knownMQTT: SourceLocation?
    /// This file's `mqtt:` block.
    var mqttSettings: MQTTSettings?
    // History (docs/operations.md, "Retention of the history").
    /// Where the rule set's `history:` block is, if an earlier file (or this one) has one.
    var knownHistory: SourceLocation?
    /// This file's `history:` block.
    var historySettings: HistorySettings?
    /// Where the rule set's first `console:` block is, valid or not.
    var knownConsole: SourceLocation?
    /// This file's `console:` block, when it holds the rule set's first one.
    var consoleBlock: ConsoleBlock?

    /// One diagnostic per `mqtt` action, reported by the loader if the rule set has no `mqtt:` block.
    var mqttActionSites: [Diagnostic] = []

    init(
        file: String, directory: String, text: String, environment: [String: String],
        knownNames: [String: SourceLocation]
    ) {
        self.file = file
        self.directory = directory
        self.text = text
        self.environment = environment
        self.expander = TemplateParser(environment: environment)
        self.knownNames = knownNames
    }

    // MARK: Diagnostics

    func location(_ node: Node) -> SourceLocation {
        let (line, column) = position(node)
        return SourceLocation(file: file, line: line, column: column)
    }

    /// Where a node starts (0, 0 if unknown), inside the text: an empty node at the end of a text without a final
    /// line break has its mark on the line after the last, like libyaml's errors (see ``insideText``).
    func position(_ node: Node) -> (line: Int, column: Int) {
        guard let mark = node.mark else { return (0, 0) }
        return insideText(line: mark.line, column: mark.column)
    }

    func report(line: Int, column: Int, _ message: String, severity: Diagnostic.Severity = .error) {
        let source = line >= 1 && line <= lines.count ? String(lines[line - 1]).trimmingSuffixCR : nil
        diagnostics.append(
            Diagnostic(
                file: file, line: line, column: column, severity: severity, message: message, sourceLine: source))
    }

    func error(_ node: Node, _ message: String) {
        let (line, column) = position(node)
        report(line: line, column: column, message)
    }

    func warning(_ node: Node, _ message: String) {
        let (line, column) = position(node)
        report(line: line, column: column, message, severity: .warning)
    }

    /// Reports a problem at an offset in Unicode scalars inside a YAML scalar (columns count Unicode scalars too).
    ///
    /// The offset becomes a column only on the scalar's first line: a block scalar (`|`, `>`) starts on the
    /// next line and a flow scalar may go on over several, so an offset that lands past the end of the first
    /// line (or any offset in a block scalar) points at the scalar itself instead.
    func error(_ node: Node, offset: Int, _ message: String) {
        let (line, column) = position(node)
        let style = node.scalar?.style
        let shifted = column + offset + (style == .singleQuoted || style == .doubleQuoted ? 1 : 0)
        let fits =
            style != .literal && style != .folded && line >= 1 && line <= lines.count
            && shifted <= String(lines[line - 1]).trimmingSuffixCR.unicodeScalars.count + 1
        report(line: line, column: fits ? shifted : column, message)
    }

    // MARK: Typed access

    func mapping(_ node: Node, _ what: String) -> Node.Mapping? {
        if case .mapping(let mapping) = node { return mapping }
        error(node, "\(what) must be a mapping, not \(YAMLNodes.kind(node))")
        return nil
    }

    /// Reports every key of `mapping` not in `allowed`, with a suggestion; returns the valid (key, value) pairs.
    func entries(_ mapping: Node.Mapping, allowed: [String], context: String) -> [(
        key: String, keyNode: Node, value: Node
    )] {
        var result: [(String, Node, Node)] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else {
                error(keyNode, "keys must be strings \(context)")
                continue
            }
            guard allowed.contains(key) else {
                let hint = Suggestion.closest(to: key, in: allowed).map { " (did you mean '\($0)'?)" } ?? ""
                error(keyNode, "unknown key '\(key)' \(context)\(hint)")
                continue
            }
            result.append((key, keyNode, value))
        }
        return result
    }

    /// A string value with `${NAME}` expanded; nil (after a diagnostic) if it is not a scalar or expansion fails.
    func string(_ node: Node, _ what: String) -> (value: String, display: String)? {
        guard case .scalar(let scalar) = node, !YAMLNodes.isNull(scalar) else {
            error(node, "\(what) must be a string, not \(YAMLNodes.kind(node))")
            return nil
        }
        do {
            let (value, hasSecrets) = try expander.expand(scalar.string)
            return (value, hasSecrets ? scalar.string : value)
        } catch {
            self.error(node, offset: error.offset, error.message)
            return nil
        }
    }

    /// A list of strings (a single string is an error: docs/rules.md, "Value types").
    func stringList(_ node: Node, _ what: String) -> [(value: String, display: String, node: Node)]? {
        guard case .sequence(let sequence) = node else {
            error(node, "\(what) must be a list, not \(YAMLNodes.kind(node)) (write [\(node.scalar?.string ?? "…")])")
            return nil
        }
        var result: [(String, String, Node)] = []
        for item in sequence {
            if let (value, display) = string(item, "an entry of \(what)") { result.append((value, display, item)) }
        }
        return result
    }

    func bool(_ node: Node, _ what: String) -> Bool? {
        if case .scalar(let scalar) = node, scalar.style == .plain {
            switch scalar.string.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        error(
            node,
            "\(what) must be true or false, not \(YAMLNodes.kind(node) == "a string" ? "'\(node.scalar!.string)'" : YAMLNodes.kind(node))"
        )
        return nil
    }

    func duration(_ node: Node, _ what: String) -> Duration? {
        guard let (text, display) = string(node, what) else { return nil }
        guard let duration = DurationText.parse(text) else {
            error(node, "\(what) '\(display)' is not a duration (write 500ms, 2s, 1m, 1h or 0)")
            return nil
        }
        return duration
    }
}

extension String {
    var trimmingSuffixCR: String { hasSuffix("\r") ? String(dropLast()) : self }
}
