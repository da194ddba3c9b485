import Foundation
import NDEF
import TagRules
import Testing

/// `type:` (docs/rules.md, "`type`: a keyboard at the desk"): parsed, rendered with the rule's own line breaks
/// only, refused by the system service, and warned about when a stranger's tag chooses the text.
@Suite struct TypeActionTests {
    static func rules(match: String = "uid: [04A1B2C3D4E580]", type: String = #""{uid}\n""#) -> String {
        """
        version: 1
        rules:
          - name: desk
            match: { \(match) }
            type: \(type)
        """
    }

    static func render(_ text: String, event: TagEvent) throws -> RenderedAction? {
        let ruleSet = try RuleSet.load(files: [("desk.yaml", rules(type: text))], environment: [:]).get()
        return try ruleSet.rules[0].render(event: event, eventID: "e", time: "t").first
    }

    @Test("the rule's own \\n and \\t are typed; the UID is the tag's")
    func rendersTheRulesOwnKeys() throws {
        let event = TagEvent(uid: "04A1B2C3D4E580", reader: "Desk", tech: "type2", uri: "https://e.com/")
        #expect(try Self.render(#""{uid}\t{reader}\n""#, event: event) == .type(text: "04A1B2C3D4E580\tDesk\n"))
    }

    @Test(
        "a placeholder value holding a control or format character is refused, naming the placeholder",
        arguments: [
            ("hi\nrm -rf ~\n", "U+A"), ("tab\there", "U+9"), ("esc\u{1B}[2J", "U+1B"), ("bidi\u{202E}txt", "U+202E"),
            ("zero\u{200B}width", "U+200B"),
        ])
    func refusesHostileText(text: String, character: String) throws {
        let message = try NDEFMessage(records: [TextRecord(text: text, language: "en").record])
        let event = TagEvent(uid: "04A1B2C3D4E580", reader: "Desk", tech: "type2", message: message)
        let error = try #require(throws: TagRulesError.self) { try Self.render(#""{text}\n""#, event: event) }
        #expect(error.code == .keystrokeInjection)
        #expect(error.message == "placeholder {text} would type the character \(character) into the desktop")
    }

    @Test("'type' is an action key of 'denied:' and of a presentation event too")
    func typeUnderDeniedAndOn() throws {
        let text = """
            version: 1
            rules:
              - name: desk
                match: { tags: [staff] }
                type: "{uid}\\n"
                denied: { type: "refused\\n" }
                on: { removed: { type: "gone\\n" } }
            """
        let tags = ("tags.yaml", "version: 1\ntags:\n  - name: ann\n    uid: \"04A1B2C3D4E580\"\n    groups: [staff]\n")
        let result = RuleSet.load(files: [("desk.yaml", text), tags], environment: [:])
        let rule = try #require(result.ruleSet?.rules.first, "\(result.diagnostics.map(\.headline))")
        #expect(rule.denied?.map(\.kindName) == ["type"])
        #expect(rule.on.removed?.actions.map(\.kindName) == ["type"])
    }

    @Test("the system service refuses 'type' at check, at its place")
    func systemServiceRefuses() {
        let result = RuleSet.load(
            files: [("desk.yaml", Self.rules())], environment: ["TAGROUTER_SYSTEM_SERVICE": "1"])
        #expect(result.ruleSet == nil)
        #expect(
            result.diagnostics.map(\.headline) == [
                "desk.yaml:5:11: error: 'type' needs the desktop session of the user unit (tagrouter-user.service); "
                    + "the system service has no keyboard focus to type into in rule 'desk'"
            ])
    }

    @Test(
        "typing {text} or {uri} of a tag the rule does not trust is warned about; a trusted match is not",
        arguments: [
            ("domains: [e.com]", #""{uri}\n""#, true), ("domains: [e.com]", #""{text}""#, true),
            ("domains: [e.com]", #""{uid}\n""#, false), ("uid: [04A1B2C3D4E580]", #""{text}\n""#, false),
        ])
    func warnsAboutTagChosenText(match: String, type: String, warns: Bool) throws {
        let result = RuleSet.load(files: [("desk.yaml", Self.rules(match: match, type: type))], environment: [:])
        let warnings = result.diagnostics.filter { $0.severity == .warning }.map(\.headline)
        #expect(result.ruleSet != nil)
        #expect(warnings.contains { $0.contains("a stranger's tag types into your desktop") } == warns, "\(warnings)")
    }
}
