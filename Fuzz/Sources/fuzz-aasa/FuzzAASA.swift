@_spi(Reference) import AASAPatterns
import FuzzSupport

// AASA component patterns compiled from fuzzed text and matched against a fuzzed URI, through the AASAPatterns
// module that TagRules uses (PatternCompiler, Pattern, MatchSubject, ParsedURI, ComponentPattern): going through a
// YAML rules file cost four fifths of every execution (YAML itself is fuzz-rules' job), and the target managed
// only 700 executions a second that way.
//
// The input is split at 0x00 bytes: path pattern, query pattern, fragment pattern, URI tail (after
// `https://example.com`), then a flags byte (caseSensitive, percentEncoded, query as a mapping of two items).
// Invariants:
// - a pattern either compiles or is refused with a message and an offset inside the pattern;
// - a compiled pattern matches in bounded time (libFuzzer's -timeout catches exponential backtracking);
// - `*` before a pattern that matches a path still compiles and matches it;
// - a trailing `/` added to the path never changes whether a path pattern matches (Apple's slash rules);
// - a pattern that is the URI's own path, escaped, matches it: as written, and percent-decoded when that is valid
//   UTF-8, with and without case folding;
// - an object of `*` everywhere matches every URI of RFC 3986 unreserved and sub-delimiter characters;
// - the matcher (two-pointer without variables, bit-parallel with them) agrees with the cell-by-cell reference
//   table on each fuzzed pattern against the URI's bytes. Two user variables are defined for this:
//   `$(w)` = `a*`, `?b`, `c` (values with wildcards) and `$(x)` = `ab`, `a`, the empty value.
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
    let uriText = "https://example.com" + text(input.field(separatedBy: 0))
    let flags = input.byte() ?? 0
    let mode = MatchSubject.Mode(percentEncoded: flags & 2 != 0, caseSensitive: flags & 1 != 0)
    let compiler = PatternCompiler(
        variables: variables, foldsCase: !mode.caseSensitive, percentEncoded: mode.percentEncoded)
    for text in [path, query, fragment] { agreesWithReference(text, compiler, Array(uriText.utf8)) }

    guard let pathPattern = compiled(path, compiler.compilePath), let queryPattern = compiled(query, compiler.compile),
        let fragmentPattern = compiled(fragment, compiler.compile)
    else { return 0 }
    let queryCondition: ComponentPattern.Query =
        flags & 4 != 0
        ? .items([
            QueryItemCondition(name: compiler.normalize("ref"), pattern: queryPattern),
            QueryItemCondition(name: compiler.normalize("q"), pattern: star),
        ])
        : .whole(queryPattern)
    let object = component(path: pathPattern, query: queryCondition, fragment: fragmentPattern, mode: mode)

    guard let uri = ParsedURI(uriText) else {
        check(!isAcceptedByAll(uriText), "a plain URI refused by the parser: \(uriText)")
        return 0
    }
    var subject = MatchSubject(uri: uri)
    // The fuzzed object is matched for its time bound (libFuzzer's -timeout); the checks below have oracles.
    _ = object.matches(&subject)
    if isAcceptedByAll(uriText) {
        check(catchAll.matches(&subject), "'*' everywhere does not match \(uriText)")
    }

    // Widening: `*` in front of a path pattern that matches compiles and keeps it matching.
    if subject.matches(pathPattern, mode) {
        // A leading run of slashes counts as one only at the very start, so it is collapsed before the `*`.
        let anchored = path.hasPrefix("/") ? "/" + path.drop { $0 == "/" } : path
        do {
            let widened = try compiler.compilePath("*" + anchored)
            check(
                subject.matches(widened, mode),
                "'\(path)' matches the path of \(uriText) but '*\(anchored)' does not")
        } catch {
            check(false, "'*\(anchored)' refused although '\(path)' compiles: \(error.message)")
        }
    }

    // Trailing slashes decide nothing (Apple's slash rules): one more `/` after the path gives the same answer.
    let slashed = uri.withBytes { bytes in
        String(decoding: bytes[..<uri.path.upperBound], as: UTF8.self) + "/"
            + String(decoding: bytes[uri.path.upperBound...], as: UTF8.self)
    }
    if let other = ParsedURI(slashed) {
        var otherSubject = MatchSubject(uri: other)
        check(
            otherSubject.matches(pathPattern, mode) == subject.matches(pathPattern, mode),
            "'\(path)' answers differently for \(uriText) and \(slashed)")
    }

    // The path, escaped, matches itself: as written, and percent-decoded when that is UTF-8; case folded or not.
    let written = uri.path.isEmpty ? "/" : uri.text(uri.path)
    let decoded = String(validating: URIText.percentDecoded(written.utf8), as: UTF8.self)
    for percentEncoded in [true, false] {
        guard let own = percentEncoded ? written : decoded else { continue }
        let literal = escaped(own)
        for caseSensitive in [true, false] {
            let literalMode = MatchSubject.Mode(percentEncoded: percentEncoded, caseSensitive: caseSensitive)
            let literalCompiler = PatternCompiler(
                variables: [:], foldsCase: !caseSensitive, percentEncoded: percentEncoded)
            do {
                let pattern = try literalCompiler.compilePath(literal)
                check(
                    subject.matches(pattern, literalMode),
                    "'\(literal)' does not match the path of \(uriText) in \(literalMode)")
            } catch {
                check(false, "escaped path '\(literal)' refused: \(error.message)")
            }
        }
    }
    return 0
}

/// The user variables of every fuzzed pattern: one whose values hold wildcards, one with an empty value.
let variables = ["w": ["a*", "?b", "c"], "x": ["ab", "a", ""]]

/// Checks that `text`, compiled as a plain pattern, answers like the reference table against `subject` (when the
/// table is small enough to stay quick).
func agreesWithReference(_ text: String, _ compiler: PatternCompiler, _ subject: [UInt8]) {
    guard let pattern = try? compiler.compile(text), text.utf8.count * (subject.count + 1) <= 4_000 else { return }
    let answer = pattern.matches(subject)
    check(
        answer == pattern.referenceMatches(subject),
        "'\(text)' \(answer ? "matches" : "does not match") \(subject) but the reference table says otherwise")
}

/// `*`, which matches everything.
let star = try! PatternCompiler(variables: [:], foldsCase: false, percentEncoded: true).compile("*")
/// `*` as a path pattern.
let starPath = try! PatternCompiler(variables: [:], foldsCase: false, percentEncoded: true).compilePath("*")
/// `{"/": "*", "?": "*", "#": "*"}`.
let catchAll = component(
    path: starPath, query: .whole(star), fragment: star, mode: .init(percentEncoded: true, caseSensitive: true))

/// A component object as a rules file's `components` entry compiles it.
func component(
    path: PathPattern?, query: ComponentPattern.Query? = nil, fragment: Pattern? = nil, mode: MatchSubject.Mode
) -> ComponentPattern {
    ComponentPattern(path: path, query: query, fragment: fragment, mode: mode)
}

/// The pattern, or nil when the compiler refuses it, after checking that the refusal is located inside it.
func compiled<P>(_ text: String, _ compile: (String) throws(PatternCompiler.Failure) -> P) -> P? {
    do {
        return try compile(text)
    } catch {
        let scalars = text.unicodeScalars.count
        check(!error.message.isEmpty, "a refusal without a message for '\(text)'")
        check(
            error.offset >= 0 && error.offset < scalars,
            "offset \(error.offset) outside pattern '\(text)' of \(scalars) Unicode scalars")
        return nil
    }
}

/// `text` as a pattern that matches exactly it.
func escaped(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        if "*?$\\".unicodeScalars.contains(scalar) { result.unicodeScalars.append("\\") }
        result.unicodeScalars.append(scalar)
    }
    return result
}

/// Fuzz bytes as text (invalid UTF-8 replaced).
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// RFC 3986 unreserved and sub-delimiter characters, `/`, `?` and `#`: what `isAcceptedByAll` allows.
let plainURIBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=/?#".utf8)

/// Whether `uri` is a plain `https://example.com` URI that the catch-all object must accept: a path, query and
/// fragment of RFC 3986 unreserved and sub-delimiter characters, `/`, `?`, and at most one `#`.
func isAcceptedByAll(_ uri: String) -> Bool {
    let tail = uri.utf8.dropFirst("https://example.com".utf8.count)
    guard tail.allSatisfy(plainURIBytes.contains), tail.count(where: { $0 == UInt8(ascii: "#") }) <= 1 else {
        return false
    }
    return tail.isEmpty || tail.first == UInt8(ascii: "/") || tail.first == UInt8(ascii: "?")
        || tail.first == UInt8(ascii: "#")
}
