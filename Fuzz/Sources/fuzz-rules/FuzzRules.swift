import FuzzSupport
import TagRules

/// The rules loader with the input as one YAML file. Invariants: every diagnostic is located inside the text
/// (line 0 only with column 0; otherwise a line that exists and a column at most one past the longest line); a result
/// has a rule set exactly when no diagnostic is an error; a loaded rule set matches and explains sample events.
@_cdecl("fuzz_rules_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = RuleSet.load(files: [("fuzz.yaml", text)], environment: ["HOME": "/home/fuzz", "TOKEN": "t"])
    // Only needed to check diagnostics (most loads of the seeds' mutations have some, but not all).
    let lines = result.diagnostics.isEmpty ? [] : lineLengths(text)
    // Parsers disagree on NEL, LS and PS; the longest line between line feeds bounds every column.
    let longestLine =
        result.diagnostics.isEmpty
        ? 0
        : text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.unicodeScalars.count }.max() ?? 0
    for diagnostic in result.diagnostics {
        check(diagnostic.file == "fuzz.yaml", "diagnostic names file \(diagnostic.file)")
        check(!diagnostic.message.isEmpty, "a diagnostic without a message")
        if diagnostic.line == 0 {
            check(diagnostic.column == 0, "line 0, column \(diagnostic.column): \(diagnostic)")
            continue
        }
        check(
            diagnostic.line >= 1 && diagnostic.line <= lines.count,
            "line \(diagnostic.line) of \(lines.count): \(diagnostic)")
        check(
            diagnostic.column >= 1 && diagnostic.column <= longestLine + 1,
            "column \(diagnostic.column), longest line \(longestLine): \(diagnostic)")
    }
    check((result.ruleSet == nil) == result.diagnostics.contains { $0.severity == .error }, "rule set vs errors")
    if let ruleSet = result.ruleSet {
        check(ruleSet.rules.count == result.ruleCount, "rule count \(result.ruleCount) vs \(ruleSet.rules.count)")
        for uri in sampleURIs {
            let event = TagEvent(uid: "04A1B2C3", reader: "ACS ACR122U 00 00", tech: "type2", uri: uri, texts: [uri])
            _ = ruleSet.match(event)
            _ = ruleSet.explain(event)
        }
    }
    return 0
}

/// The length in Unicode scalars of each line, splitting at every YAML line break (LF, CR LF, CR, and the
/// YAML 1.1 breaks NEL, LS, PS), so that whichever a parser honours, there are no more lines than these.
func lineLengths(_ text: String) -> [Int] {
    var lengths = [0]
    var previous: Unicode.Scalar?
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n" where previous == "\r":
            break
        case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}":
            lengths.append(0)
        default:
            lengths[lengths.count - 1] += 1
        }
        previous = scalar
    }
    return lengths
}
