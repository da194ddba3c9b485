import Foundation
import TagRules
import Testing

/// A rule's `on:` block (docs/rules.md, "Tags that stay on the reader"): parsing, every mistake at file:line:col,
/// rendering with the event's placeholders, and `match` showing the later events.
@Suite struct PresentationEventRulesTests {
    static func file(_ on: String) -> String {
        "version: 1\nrules:\n  - name: shelf\n    match: {uid: ['04A1']}\n    run: [/bin/true]\n    on:\n" + on
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var on: String
        var expected: [String]
        var description: String { name }
    }

    static let mistakes: [Case] = [
        Case(
            name: "an unknown event", on: "      remove: {run: [/bin/true]}\n",
            expected: ["f.yaml:7:7: error: unknown key 'remove' in 'on' in rule 'shelf' (did you mean 'removed'?)"]),
        Case(
            name: "an event without an action", on: "      removed: {after: 2s}\n",
            expected: [
                "f.yaml:7:16: error: 'removed' has no action in rule 'shelf' (add 'run', 'open', 'webhook', 'mqtt' or 'actions')"
            ]),
        Case(
            name: "held without for", on: "      held: {run: [/bin/true]}\n",
            expected: ["f.yaml:7:13: error: 'held' has no 'for' in rule 'shelf' (write for: 2s)"]),
        Case(
            name: "returned without within", on: "      returned: {run: [/bin/true]}\n",
            expected: ["f.yaml:7:17: error: 'returned' has no 'within' in rule 'shelf' (write within: 2s)"]),
        Case(
            name: "a timing that is not a duration", on: "      held: {for: soon, run: [/bin/true]}\n",
            expected: ["f.yaml:7:19: error: 'for' 'soon' is not a duration (write 500ms, 2s, 1m, 1h or 0)"]),
        Case(
            name: "a zero timing", on: "      returned: {within: 0, run: [/bin/true]}\n",
            expected: ["f.yaml:7:26: error: 'within' of 'returned' must be longer than 0s in rule 'shelf'"]),
        Case(
            name: "the wrong timing key", on: "      removed: {for: 2s, run: [/bin/true]}\n",
            expected: ["f.yaml:7:17: error: unknown key 'for' in 'removed' in rule 'shelf'"]),
        Case(
            name: "an empty block", on: "      {}\n",
            expected: ["f.yaml:7:7: error: 'on' is empty in rule 'shelf' (give 'removed', 'held' or 'returned')"]),
    ]

    @Test(arguments: mistakes)
    func mistakesAreReportedAtTheirPlace(fact: Case) {
        let result = RuleSet.load(files: [("f.yaml", Self.file(fact.on))], environment: [:])
        #expect(result.diagnostics.map(\.headline) == fact.expected)
        #expect(result.ruleSet == nil)
    }

    static let shelf = file(
        """
              removed: {run: [/bin/echo, "{event}", "{presentation_id}", "{presented_for_ms}"]}
              held: {for: 3s, actions: [{run: [/bin/echo, held]}, {mqtt: {topic: "shelf/{event}"}}]}
              returned: {within: 10m, run: [/bin/echo, back]}

        """)

    @Test func eventsAreParsedWithTheirTimingAndActions() throws {
        let text = Self.shelf.replacingOccurrences(
            of: "version: 1\n", with: "version: 1\nmqtt: {url: 'mqtt://localhost'}\n")
        let rule = try #require(try RuleSet.load(files: [("f.yaml", text)], environment: [:]).get().rules.first)
        #expect(rule.on.kinds == [.tap, .removed, .held, .returned])
        #expect(rule.on.removed?.timing == .seconds(1))
        #expect(rule.on.held?.timing == .seconds(3))
        #expect(rule.on.returned?.timing == .seconds(600))
        #expect(rule.actions(for: .held).count == 2)
        #expect(rule.actions(for: .tap).count == 1)
        let event = TagEvent(uid: "04A1", reader: "Shelf", tech: "type2", uri: nil)
        let removed = try rule.render(
            event: event, eventID: "e2", time: "t",
            presentation: PresentationContext(kind: .removed, presentationID: "e1", presentedFor: .milliseconds(4_321)))
        guard case .run(let argv, let environment, _, _) = removed.first else {
            Issue.record("not a run action: \(removed)")
            return
        }
        #expect(argv == ["/bin/echo", "removed", "e1", "4321"])
        #expect(environment["TAG_EVENT"] == "removed")
        #expect(environment["TAG_PRESENTATION_ID"] == "e1")
        #expect(environment["TAG_PRESENTED_FOR_MS"] == "4321")
        let held = try rule.render(
            event: event, eventID: "e3", time: "t",
            presentation: PresentationContext(kind: .held, presentationID: "e1", presentedFor: .seconds(3)))
        guard case .mqtt(let mqtt) = held.last else {
            Issue.record("not an mqtt action: \(held)")
            return
        }
        #expect(mqtt.topic == "shelf/held")
        // A tap without a presentation: its own event id is its presentation id.
        let tap = try rule.render(event: event, eventID: "e9", time: "t")
        #expect(tap.count == 1)
        let values = PlaceholderValues(event: event, rule: "shelf", eventID: "e9", time: "t")
        #expect(values[.event] == "tap" && values[.presentationID] == "e9" && values[.presentedForMilliseconds] == "0")
    }

    @Test func matchShowsTheLaterEventsAndTheirActions() throws {
        let set = try RuleSet.load(
            files: [("f.yaml", Self.shelf.replacingOccurrences(of: ", {mqtt: {topic: \"shelf/{event}\"}}", with: ""))],
            environment: [:]
        ).get()
        let report = MatchReport(
            event: TagEvent(uid: "04A1", reader: "Shelf", tech: "type2", uri: nil), ruleSet: set, explaining: false,
            eventID: "e1", time: "t")
        #expect(
            report.text == """
                matched: shelf
                  shelf: run ["/bin/true"] timeout 10s
                  shelf on removed (after 1s): run ["/bin/echo", "removed", "e1", "0"] timeout 10s
                  shelf on held (for 3s): run ["/bin/echo", "held"] timeout 10s
                  shelf on returned (within 10m): run ["/bin/echo", "back"] timeout 10s
                """)
        #expect(report.json.contains(#""events":[{"actions":"#), "\(report.json)")
        let explained = MatchReport(
            event: TagEvent(uid: "04A1", reader: "Shelf", tech: "type2", uri: nil), ruleSet: set, explaining: true,
            eventID: "e1", time: "t")
        #expect(explained.text.hasPrefix("explain:\n  shelf (f.yaml:3:11): matched: "), "\(explained.text)")
        #expect(explained.text.contains(" [on: removed, held, returned]\n"), "\(explained.text)")
        #expect(explained.explain?.first?.events == ["removed", "held", "returned"])
    }
}
