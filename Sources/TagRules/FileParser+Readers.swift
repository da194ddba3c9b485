import AASAPatterns
import ReaderFeedback
import Yams

extension FileParser {
    static let readerKeys = ["name", "family", "quiet", "feedback"]
    static let signalKeys = ["led", "beep", "blink"]

    /// Parses the top-level `readers:` list (docs/rules.md, "`readers:`: what the reader shows").
    func parseReaders(_ node: Node) {
        guard case .sequence(let list) = node else {
            error(node, "'readers' must be a list, not \(YAMLNodes.kind(node))")
            return
        }
        for (position, item) in list.enumerated() {
            if let settings = parseReader(item, number: position + 1) { readers.append(settings) }
        }
    }

    private func parseReader(_ node: Node, number: Int) -> ReaderSettings? {
        guard let mapping = mapping(node, "a 'readers' entry") else { return nil }
        let errorsBefore = diagnostics.count { $0.severity == .error }
        let context = "in 'readers' entry #\(number)"
        var pattern: Pattern?
        var family: ReaderFamily?
        var quiet = false
        var quietNode: Node?
        var plan = FeedbackPlan()
        for item in entries(mapping, allowed: Self.readerKeys, context: context) {
            switch item.key {
            case "name":
                guard let (text, _) = string(item.value, "'name' \(context)") else { continue }
                let compiler = PatternCompiler(
                    variables: variables, foldsCase: !defaultCaseSensitive, percentEncoded: false)
                do {
                    pattern = try compiler.compile(text)
                } catch {
                    self.error(item.value, offset: error.offset, error.message)
                }
                if let pattern, let first = readerNames[pattern.source] {
                    warning(
                        item.value,
                        "reader pattern '\(pattern.source)' is listed again (the first entry, at \(first), wins)")
                } else if let pattern {
                    readerNames[pattern.source] = location(item.value)
                }
            case "family":
                guard let (text, display) = string(item.value, "'family' \(context)") else { continue }
                family = ReaderFamily(rawValue: text)
                if family == nil {
                    let names = ReaderFamily.allCases.map(\.rawValue)
                    let hint = Suggestion.closest(to: text, in: names).map { " (did you mean '\($0)'?)" } ?? ""
                    error(
                        item.value,
                        "unknown reader family '\(display)'\(hint); expected one of \(names.joined(separator: ", "))")
                }
            case "quiet":
                quiet = bool(item.value, "'quiet'") ?? false
                quietNode = item.value
            default:
                plan = parseFeedback(item.value, context: context)
            }
        }
        if mapping["name"] == nil {
            error(node, "'readers' entry #\(number) has no 'name' (a reader name pattern, like match.reader)")
        }
        if quiet, let family, !family.hasQuietMode, let quietNode {
            warning(quietNode, "reader family '\(family.rawValue)' has no quiet mode: 'quiet' has no effect")
        }
        guard diagnostics.count(where: { $0.severity == .error }) == errorsBefore, let pattern else { return nil }
        return ReaderSettings(
            name: pattern, family: family, quiet: quiet, feedback: plan, location: location(mapping["name"] ?? node))
    }

    /// Parses a `feedback:` mapping (of a `readers` entry, or of a rule): each outcome's signal, or `none`.
    func parseFeedback(_ node: Node, context: String) -> FeedbackPlan {
        var plan = FeedbackPlan()
        guard let mapping = mapping(node, "'feedback' \(context)") else { return plan }
        let outcomes = FeedbackOutcome.allCases.map(\.rawValue)
        for item in entries(mapping, allowed: outcomes, context: "in 'feedback' \(context)") {
            guard let outcome = FeedbackOutcome(rawValue: item.key) else { continue }
            if let signal = parseSignal(item.value, outcome: outcome, context: context) {
                plan.signals[outcome] = signal
            }
        }
        return plan
    }

    /// One outcome's signal: `none`, or a mapping of `led`, `beep` and `blink`.
    private func parseSignal(_ node: Node, outcome: FeedbackOutcome, context: String) -> FeedbackSignal? {
        let what = "'\(outcome.rawValue)' \(context)"
        if case .scalar(let scalar) = node {
            if scalar.string == "none" { return FeedbackSignal() }
            error(
                node,
                "\(what) must be 'none' or a mapping like { led: green, beep: short }, not '\(scalar.string)'")
            return nil
        }
        guard let mapping = mapping(node, what) else { return nil }
        var signal = FeedbackSignal()
        var blinkNode: Node?
        for item in entries(mapping, allowed: Self.signalKeys, context: "in \(what)") {
            switch item.key {
            case "led":
                signal.led = choice(item.value, "'led' in \(what)", LEDColor.self)
            case "beep":
                signal.beep = choice(item.value, "'beep' in \(what)", BeepPattern.self) ?? .none
            default:
                blinkNode = item.value
                guard let (text, display) = string(item.value, "'blink' in \(what)") else { continue }
                guard let count = Int(text), count >= 1, count <= FeedbackSignal.maximumBlinks else {
                    error(
                        item.value,
                        "'blink' in \(what) must be a count from 1 to \(FeedbackSignal.maximumBlinks), not '\(display)'"
                    )
                    continue
                }
                signal.blink = count
            }
        }
        if let blinkNode, signal.blink > 0, signal.led == nil || signal.led == .off {
            error(blinkNode, "'blink' in \(what) needs a colour to blink: add 'led: green', 'red' or 'orange'")
            return nil
        }
        return signal
    }

    /// A value that must be one of an enumeration's raw values; an error with a suggestion otherwise.
    private func choice<Value: RawRepresentable & CaseIterable>(_ node: Node, _ what: String, _: Value.Type)
        -> Value? where Value.RawValue == String
    {
        guard let (text, display) = string(node, what) else { return nil }
        if let value = Value(rawValue: text) { return value }
        let names = Value.allCases.map(\.rawValue)
        let hint = Suggestion.closest(to: text, in: names).map { " (did you mean '\($0)'?)" } ?? ""
        error(node, "\(what) is one of \(names.joined(separator: ", ")), not '\(display)'\(hint)")
        return nil
    }
}
