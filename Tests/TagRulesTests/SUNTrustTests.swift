import Foundation
import NDEF
import SUNMessage
import TagRules
import Testing

/// What a verified SUN message proves (docs/doors.md, "What a SUN message proves"): the MAC covers the URL by
/// default, a message whose MAC covers nothing verifies only under `macInput: none` and is never trusted to open,
/// items come from the query alone and once each, a refusal is never trusted, a `sun` rule's `uid` is the verified
/// one, and the message never leaves the router in the URI.
@Suite struct SUNTrustTests {
    static let metaKey = [UInt8](repeating: 0x11, count: 16)
    static let fileKey = [UInt8](repeating: 0x22, count: 16)
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let environment = [
        "META": String(repeating: "11", count: 16), "FILE": String(repeating: "22", count: 16),
    ]

    static func hex(_ bytes: [UInt8]) -> String { HexText.string(bytes, uppercase: true) }

    /// A genuine message after `base` (`…?p=…&m=…`), its MAC over the text from `inputFrom` (an offset in the URL)
    /// to the MAC: what a tag stores and mirrors; `nil` input: an empty MAC input.
    static func message(_ base: String, counter: UInt32, macFrom inputFrom: Int?) throws -> String {
        let picc = try SUNCrypto.piccData(uid: uid, counter: counter, padding: [1, 2, 3, 4, 5], metaReadKey: metaKey)
        let head = base + (base.contains("?") ? "&" : "?") + "p=" + hex(picc) + "&m="
        let input = inputFrom.map { Array(head.utf8.dropFirst($0)) } ?? []
        let mac = try SUNCrypto.mac(fileReadKey: fileKey, uid: uid, counter: counter, input: input)
        return head + hex(mac)
    }

    /// The event a tag storing `uri` abbreviated by its longest prefix gives, as read.
    static func read(_ uri: String, uid: String = "04DE5F1EACC040", reader: String = "Door") -> TagEvent {
        TagEvent(
            uid: uid, reader: reader, tech: "type4", message: NDEFMessage(records: [URIRecord(uri: uri).record]))
    }

    static func rules(_ sun: String, match: String = "domains: [door.example]", extra: String = "") -> String {
        """
        version: 1
        rules:
          - name: door
            match:
              \(match)
              sun: \(sun)
            open: "{uri}"
        \(extra)
        """
    }

    static let sun = #"{piccData: p, mac: m, metaReadKey: "${META}", fileReadKey: "${FILE}"}"#
    static let sunNone =
        #"{piccData: p, mac: m, metaReadKey: "${META}", fileReadKey: "${FILE}", macInput: none}"#

    static func load(_ text: String) throws -> RuleSet {
        try RuleSet.load(files: [("door.yaml", text)], environment: environment).get()
    }

    @Test("the MAC covers the URL as stored: the same p and m on another path or with another item are refused")
    func macCoversTheURL() throws {
        let rules = try Self.load(Self.rules(Self.sun))
        // Stored as code 0x04 ("https://") then the text: the MAC starts at the text's first character.
        let genuine = try Self.message("https://door.example/open?door=front", counter: 7, macFrom: 8)
        let decision = rules.decide(Self.read(genuine), at: Date())
        #expect(decision.matches.map(\.rule.name) == ["door"])
        #expect(decision.event.sun?.counter == 7)
        #expect(decision.matches.first?.rule.trusts(decision.event) == true)
        let items = genuine[genuine.range(of: "p=")!.lowerBound...]
        for altered in [
            "https://door.example/attacker/chosen?door=front&" + items,
            "https://door.example/open?door=vault&" + items,
            "https://door.example/open?door=front&next=evil&" + items,
        ] {
            #expect(rules.decide(Self.read(altered), at: Date()).refusal?.reason == .badMAC, "\(altered)")
        }
        // The same text stored whole (code 0x00) is the same URL: a typed URI tries both.
        let whole = try Self.message("https://door.example/open?door=front", counter: 8, macFrom: 0)
        #expect(
            rules.decide(TagEvent(uid: nil, reader: "Door", tech: "type4", uri: whole), at: Date()).matches.count == 1)
        #expect(
            rules.decide(Self.read(whole), at: Date()).refusal?.reason == .badMAC,
            "read from a tag that abbreviated https://, the MAC over the whole URL is not the tag's")
    }

    @Test("an empty MAC input verifies only under macInput: none, whose open always asks")
    func emptyMACInput() throws {
        let empty = try Self.message("https://door.example/anything?next=evil", counter: 3, macFrom: nil)
        let strict = try Self.load(Self.rules(Self.sun))
        #expect(strict.decide(Self.read(empty), at: Date()).refusal?.reason == .badMAC)
        let lenient = try Self.load(Self.rules(Self.sunNone))
        let decision = lenient.decide(Self.read(empty), at: Date())
        let rule = try #require(decision.matches.first?.rule)
        #expect(decision.event.sun?.counter == 3)
        #expect(!rule.trusts(decision.event))
        #expect(rule.asksBeforeOpening(decision.event))
        // A message whose MAC covers the URL does not verify under none.
        let covering = try Self.message("https://door.example/open", counter: 4, macFrom: 8)
        #expect(lenient.decide(Self.read(covering), at: Date()).refusal?.reason == .badMAC)
    }

    @Test("check warns for every placeholder a tag chooses in a rule whose MAC does not cover the URL")
    func warnsAboutTagChosenPlaceholders() throws {
        let text = """
            version: 1
            rules:
              - name: door
                match:
                  domains: [door.example]
                  sun: \(Self.sunNone)
                run: [/usr/bin/door, "{sun.uid}", "{path}", "{query.next}", "{path}"]
                denied: { webhook: { url: "http://127.0.0.1:1/{uri}" } }
            """
        let result = RuleSet.load(files: [("door.yaml", text)], environment: Self.environment)
        let warnings = result.diagnostics.filter { $0.severity == .warning }.map(\.headline)
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.allSatisfy { $0.hasPrefix("door.yaml:6:92: warning: '{") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("'{path}' is the tag's choice: with 'macInput: none'") })
        #expect(warnings.contains { $0.contains("'{query.next}'") } && warnings.contains { $0.contains("'{uri}'") })
        let strict = RuleSet.load(
            files: [("door.yaml", text.replacingOccurrences(of: ", macInput: none", with: ""))],
            environment: Self.environment)
        #expect(strict.diagnostics.isEmpty, "\(strict.diagnostics.map(\.headline))")
    }

    struct Mistake: CustomStringConvertible, Sendable {
        var sun: String
        var expected: String
        var description: String { expected }
    }

    @Test(
        "macInput mistakes are reported at their place",
        arguments: [
            Mistake(
                sun: #"{piccData: p, mac: m, metaReadKey: "${META}", fileReadKey: "${FILE}", macInput: all}"#,
                expected: "door.yaml:6:92: error: 'macInput' is url, fileData or none, not 'all'"),
            Mistake(
                sun: #"{piccData: p, mac: m, metaReadKey: "${META}", fileReadKey: "${FILE}", macInput: fileData}"#,
                expected: "door.yaml:6:92: error: 'macInput: fileData' needs 'encData'"),
            Mistake(
                sun:
                    #"{piccData: p, mac: m, encData: e, metaReadKey: "${META}", fileReadKey: "${FILE}", macInput: none}"#,
                expected: "door.yaml:6:104: error: 'macInput: none' leaves the file data unproved"),
        ])
    func mistake(_ mistake: Mistake) {
        let result = RuleSet.load(files: [("door.yaml", Self.rules(mistake.sun))], environment: Self.environment)
        #expect(result.ruleSet == nil)
        let errors = result.diagnostics.filter { $0.severity == .error }.map(\.headline)
        #expect(errors.contains { $0.hasPrefix(mistake.expected) }, "\(errors)")
    }

    @Test("items come from the query only, each once, and with file data the MAC must cover it")
    func itemsFromTheQueryOnce() throws {
        let rules = try Self.load(Self.rules(Self.sun))
        let genuine = try Self.message("https://door.example/open", counter: 9, macFrom: 8)
        let items = String(genuine[genuine.range(of: "p=")!.lowerBound...])
        // The only '?' after '#': the items are in the fragment, not the query.
        let inFragment = Self.read("https://door.example/open#x?" + items)
        #expect(rules.explain(inFragment).first?.reason == "sun: the URI has no query item 'm'")
        let repeated = Self.read(genuine + "&m=0000000000000000")
        #expect(rules.decide(repeated, at: Date()).refusal?.reason == .notSUN)
        #expect(rules.explain(repeated).first?.reason == "sun: the query item 'm' appears 2 times")

        // File data after the MAC: the MAC cannot have covered it.
        let fileData = [UInt8](repeating: 0x41, count: 16)
        let encrypted = try SUNCrypto.fileData(
            encrypting: fileData, fileReadKey: Self.fileKey, uid: Self.uid, counter: 5)
        let picc = try SUNCrypto.piccData(
            uid: Self.uid, counter: 5, padding: [0, 0, 0, 0, 0], metaReadKey: Self.metaKey)
        let head = "https://door.example/open?p=" + Self.hex(picc) + "&m="
        let mac = try SUNCrypto.mac(
            fileReadKey: Self.fileKey, uid: Self.uid, counter: 5, input: Array(head.utf8.dropFirst(8)))
        let late = Self.read(head + Self.hex(mac) + "&e=" + Self.hex(encrypted))
        let withFile = try Self.load(
            Self.rules(#"{piccData: p, mac: m, encData: e, metaReadKey: "${META}", fileReadKey: "${FILE}"}"#))
        #expect(withFile.decide(late, at: Date()).refusal?.reason == .notSUN)
        #expect(
            withFile.explain(late).first?.reason
                == "sun: the MAC does not cover the file data: 'e' must come before 'm'")
    }

    @Test("a rule's refusal is never trusted: its denied open asks, whatever made the rule trusted")
    func refusalsAreUntrusted() throws {
        let rules = try RuleSet.load(
            files: [
                (
                    "door.yaml",
                    """
                    version: 1
                    rules:
                      - name: desk
                        match: { uid: ["04A1A2A3"] }
                        open: "{uri}"
                        denied: { open: "{uri}" }
                    """
                )
            ], environment: [:]
        ).get()
        let stranger = TagEvent(uid: "04FFFFFF", reader: "Desk", tech: "type2", uri: "https://evil.example/")
        let decision = rules.decide(stranger, at: Date())
        let refusal = try #require(decision.refusal)
        #expect(refusal.reason == .unknownTag)
        #expect(refusal.rule.asksBeforeOpening(decision.event, denial: refusal.reason))
        let owner = TagEvent(uid: "04A1A2A3", reader: "Desk", tech: "type2", uri: "https://example.com/")
        #expect(!rules.decide(owner, at: Date()).matches[0].rule.asksBeforeOpening(owner))
    }

    @Test("a sun rule with uid and no domains matches the verified UID behind a random one")
    func sunRuleByVerifiedUID() throws {
        let rules = try Self.load(Self.rules(Self.sun, match: #"uid: ["04DE5F1EACC040"]"#))
        let genuine = try Self.message("https://door.example/open", counter: 2, macFrom: 8)
        let decision = rules.decide(Self.read(genuine, uid: "08A1B2C3"), at: Date())
        #expect(decision.matches.map(\.rule.name) == ["door"])
        #expect(rules.explain(Self.read(genuine, uid: "08A1B2C3")).first?.verdict == .matched)
    }

    @Test("the message never leaves the router in the URI: <sun> in its place for every placeholder")
    func messageRedacted() throws {
        let rules = try Self.load(Self.rules(Self.sun))
        let genuine = try Self.message("https://door.example/open?door=front", counter: 11, macFrom: 8)
        let decision = rules.decide(Self.read(genuine), at: Date())
        #expect(decision.event.uri == "https://door.example/open?door=front&p=<sun>&m=<sun>")
        let actions = try decision.matches[0].rule.render(event: decision.event, eventID: "e", time: "t")
        #expect(actions == [.open(uri: "https://door.example/open?door=front&p=<sun>&m=<sun>")])
        // `match --explain` explains the URI as given, not the one shown.
        let report = MatchReport(event: Self.read(genuine), ruleSet: rules, explaining: true, eventID: "e", time: "t")
        #expect(report.matched == ["door"])
        #expect(report.explain?.first?.verdict == .matched, "\(String(describing: report.explain))")
        // Refused (not enrolled): still redacted.
        let door = try Self.load(
            Self.rules(Self.sun, extra: "")
                .replacingOccurrences(
                    of: "domains: [door.example]", with: "domains: [door.example]\n      tags: [staff]"))
        let refused = door.decide(Self.read(genuine), at: Date())
        #expect(refused.refusal?.reason == .unknownTag)
        #expect(refused.event.uri == "https://door.example/open?door=front&p=<sun>&m=<sun>")
        #expect(refused.event.sun?.counter == 11)
    }
}
