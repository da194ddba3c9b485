@_spi(Reference) import AASAPatterns
import Testing

/// Patterns with substitution variables go through the bit-parallel matcher (Sources/AASAPatterns/
/// BitParallelMatcher.swift); each case states its answer and is checked against the cell-by-cell reference table.
struct BitParallelMatcherTests {
    static let variables = [
        "x": ["ab", "a", ""],
        "w": ["a*", "?b", "c"],
        "y": [String(repeating: "q", count: 70)],
    ]
    static let compiler = PatternCompiler(variables: variables, foldsCase: false, percentEncoded: false)

    @Test(
        arguments: [
            ("/$(x)b", "/ab", true),
            ("/$(x)b", "/b", true),
            ("/$(x)b", "/abb", true),
            ("/$(x)b", "/c", false),
            ("/$(w)/end", "/axyz/end", true),
            ("/$(w)/end", "/éb/end", true),
            ("/$(w)/end", "/c/end", true),
            ("/$(w)/end", "/cc/end", false),
            ("/$(w)/end", "/b/end", false),
            ("/$(lang)-*", "/en-x", true),
            ("/$(lang)-*", "/e1-x", false),
            ("/$(region)", "/US", true),
            ("/$(region)", "/U1", false),
            (String(repeating: "a", count: 100) + "$(x)", String(repeating: "a", count: 100) + "ab", true),
            (String(repeating: "a", count: 100) + "$(x)b", String(repeating: "a", count: 99) + "b", false),
            ("*é$(x)", "ééé", true),
            ("*$(x)z", "éaz", true),
            ("*$(x)z", "éaZ", false),
            ("/$(y)/", "/" + String(repeating: "q", count: 70) + "/", true),
            ("/$(y)/", "/" + String(repeating: "q", count: 69) + "/", false),
            ("$(digit)$(x)", "\u{663}a", true),
            ("$(digit)$(x)", "xa", false),
            ("/*/$(lang)/*", "/" + String(repeating: "é/", count: 80) + "fr/z", true),
        ] as [(String, String, Bool)])
    func answer(pattern text: String, subject: String, expected: Bool) throws {
        let pattern = try Self.compiler.compile(text)
        let bytes = Array(subject.utf8)
        #expect(pattern.matches(bytes) == expected)
        #expect(pattern.referenceMatches(bytes) == expected)
    }

    /// Invalid UTF-8 in the subject counts one byte per character, in both matchers.
    @Test func invalidBytes() throws {
        let subject: [UInt8] = [0x2F, 0xE2, 0x61, 0x62]
        for (text, expected) in [
            ("/?$(x)", true), ("/*$(x)", true), ("/??$(x)", false), ("/??$(x)b", true), ("/???$(x)b", false),
        ] {
            let pattern = try Self.compiler.compile(text)
            #expect(pattern.matches(subject) == expected, "\(text)")
            #expect(pattern.referenceMatches(subject) == expected, "\(text)")
        }
    }

    /// Two thousand generated patterns and subjects (a fixed seed): both matchers give the same answer.
    @Test func agreesWithTheReference() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // Each piece of a pattern and a text it matches; a subject is such a text, with one byte changed half of
        // the time.
        let pieces: [(String, [String])] = [
            ("a", ["a"]), ("b", ["b"]), ("é", ["é"]), ("/", ["/"]), ("*", ["", "ab", "é/", "\u{E2}"]),
            ("?", ["a", "é", "/"]), ("$(x)", ["ab", "a", ""]), ("$(w)", ["a", "aéb", "éb", "c"]),
            ("$(lang)", ["en", "fr"]), ("$(alpha)", ["a", "é"]), ("ab", ["ab"]),
        ]
        var matched = 0
        for _ in 0..<2000 {
            var text = ""
            var subject: [UInt8] = []
            for _ in 0..<next(9) {
                let (piece, texts) = pieces[next(pieces.count)]
                text += piece
                let sample = texts[next(texts.count)]
                subject += sample == "\u{E2}" ? [0xE2] : Array(sample.utf8)
            }
            if next(2) == 0, !subject.isEmpty { subject[next(subject.count)] = [0x61, 0x62, 0x2F, 0xC3][next(4)] }
            let pattern = try Self.compiler.compile(text)
            let answer = pattern.matches(subject)
            #expect(answer == pattern.referenceMatches(subject), "'\(text)' against \(subject)")
            if answer { matched += 1 }
        }
        // Both answers occur, so agreement is not agreement on "no" alone.
        #expect(matched > 100 && matched < 1900)
    }
}
