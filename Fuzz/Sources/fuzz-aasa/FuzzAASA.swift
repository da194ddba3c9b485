import FuzzSupport
import TagRules

/// AASA component patterns compiled from fuzzed text and matched against a fuzzed URI. The input is split at
/// 0x00 bytes: path pattern, query pattern, fragment pattern, URI, then a flags byte (caseSensitive,
/// percentEncoded, query as a mapping). Invariants: a pattern that loads compiles and matches in bounded time
/// (libFuzzer's -timeout catches exponential backtracking), and a pattern `*` everywhere matches every URI the
/// rule's domain accepts.
@_cdecl("fuzz_aasa_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let path = text(input.field(separatedBy: 0))
    let query = text(input.field(separatedBy: 0))
    let fragment = text(input.field(separatedBy: 0))
    let uriTail = text(input.field(separatedBy: 0))
    let flags = input.byte() ?? 0
    let caseSensitive = flags & 1 != 0
    let percentEncoded = flags & 2 != 0
    let queryField = flags & 4 != 0 ? "{\"ref\": \(quoted(query)), \"q\": \"*\"}" : quoted(query)
    let yaml = """
        version: 1
        rules:
          - name: fuzz
            match:
              domains: [example.com]
              components:
                - {"/": \(quoted(path)), "?": \(queryField), "#": \(quoted(fragment)), caseSensitive: \(caseSensitive), percentEncoded: \(percentEncoded)}
                - {"/": \(quoted(path)), exclude: true}
            open: "{uri}"
          - name: all
            match: {domains: [example.com], components: [{"/": "*", "?": "*", "#": "*"}]}
            open: "{uri}"
        """
    let result = RuleSet.load(files: [("aasa.yaml", yaml)], environment: [:])
    guard let ruleSet = result.ruleSet else { return 0 }
    let uri = "https://example.com" + uriTail
    let event = TagEvent(uid: nil, reader: "fuzz", tech: "type4", uri: uri)
    let matched = ruleSet.match(event).map(\.rule.name)
    _ = ruleSet.explain(event)
    if matched.contains("fuzz") {
        check(matched == ["fuzz"], "first match wins: \(matched)")
    } else if isAcceptedByAll(uri) {
        check(matched == ["all"], "a URI of example.com not matched by the catch-all rule: \(matched)")
    }
    return 0
}

/// Fuzz bytes as text (invalid UTF-8 replaced).
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// A YAML double-quoted scalar holding `text` exactly.
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case " "..."~": result.unicodeScalars.append(scalar)
        default:
            let hex = String(scalar.value, radix: 16)
            let width = scalar.value > 0xFFFF ? 8 : 4
            result += (width == 8 ? "\\U" : "\\u") + String(repeating: "0", count: width - hex.count) + hex
        }
    }
    return result + "\""
}

/// Whether `uri` is a plain `https://example.com` URI whose tail the catch-all rule must accept: a path, query
/// and fragment of RFC 3986 unreserved and sub-delimiter characters, `/`, `?`, and at most one `#`.
func isAcceptedByAll(_ uri: String) -> Bool {
    let tail = uri.utf8.dropFirst("https://example.com".utf8.count)
    let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=/?#".utf8)
    guard tail.allSatisfy(allowed.contains), tail.count(where: { $0 == UInt8(ascii: "#") }) <= 1 else {
        return false
    }
    return tail.isEmpty || tail.first == UInt8(ascii: "/") || tail.first == UInt8(ascii: "?")
        || tail.first == UInt8(ascii: "#")
}
