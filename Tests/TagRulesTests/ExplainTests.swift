import Foundation
import TagRules
import Testing

private let rulesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("rules").path

private let multiRule = """
    version: 1
    substitutionVariables:
      room: [kitchen, hall]
    rules:
      - name: log
        continue: true
        match: {reader: "*Door*"}
        webhook: {url: "https://log.example/", headers: {Authorization: "Bearer ${LOG_TOKEN}"}}
      - name: music
        match: {schemes: [spotify]}
        open: "{uri}"
      - name: rooms
        match:
          domains: [home.example.com]
          components:
            - {"/": "/room/secret", exclude: true}
            - {"/": "/room/$(room)", "?": {key: "?*"}}
        run: [/usr/local/bin/light, "{path}", "{query.key}"]
      - name: fallback
        match: {any: true}
        open: "{uri}"
    """

@Test func explainIsPinned() throws {
    let ruleSet = try RuleSet.load(files: [("home.yaml", multiRule)], environment: ["LOG_TOKEN": "secret-123"]).get()
    let event = TagEvent(
        uid: "0102", reader: "Front Door", tech: "type2", uri: "https://home.example.com/room/kitchen?key=7")
    let report = MatchReport(
        event: event, ruleSet: ruleSet, explaining: true, eventID: "e-1", time: "1970-01-01T00:00:00.000Z")
    #expect(
        report.text == """
            explain:
              log (home.yaml:5:11): matched: all of: reader (continue: true)
              music (home.yaml:9:11): no-match: schemes: 'https' is not one of spotify (skipped by the index)
              rooms (home.yaml:12:11): matched: components: {"/": "/room/$(room)", "?": {"key": "?*"}} at home.yaml:17:11
              fallback (home.yaml:19:11): not-evaluated: an earlier rule matched without `continue`
            matched: log, rooms
              log: webhook POST https://log.example
                  Authorization: <redacted>
                  body: (the event document)
              rooms: run ["/usr/local/bin/light", "/room/kitchen", "7"] timeout 10s
            """)
    #expect(!report.json.contains("secret-123"))
    let excluded = ruleSet.explain(
        TagEvent(uid: nil, reader: "Desk", tech: "type4", uri: "https://home.example.com/room/secret"))
    #expect(
        excluded.map(\.reason) == [
            "reader: 'Desk' does not match '*Door*'",
            "schemes: 'https' is not one of spotify (skipped by the index)",
            #"components: excluded by {"/": "/room/secret", "exclude": true} at home.yaml:16:11"#,
            "all of: any",
        ])
}

@Test func matchJSONShape() throws {
    let ruleSet = try RuleSet.load(files: [("home.yaml", multiRule)], environment: ["LOG_TOKEN": "x"]).get()
    let event = TagEvent(uid: nil, reader: "cli", tech: "type2", uri: "spotify:track:1")
    let report = MatchReport(
        event: event, ruleSet: ruleSet, explaining: false, eventID: "e-1", time: "1970-01-01T00:00:00.000Z")
    #expect(report.json == #"{"actions":[{"kind":"open","uri":"spotify:track:1"}],"errors":[],"matched":["music"]}"#)
    let none = MatchReport(
        event: TagEvent(uid: nil, reader: "cli", tech: "type2", uri: nil),
        ruleSet: try RuleSet.load(
            files: [("x.yaml", "version: 1\nrules: []\n")], environment: [:]
        ).get(), explaining: false, eventID: "e", time: "1970-01-01T00:00:00.000Z")
    #expect(none.isIgnored)
    #expect(none.text == "no rule matches: the tag would be ignored")
}

@Test func exampleRulesPassCheck() {
    let report = CheckReport(sources: [rulesFolder], environment: ["HA_TOKEN": "token", "PATH": "/usr/bin:/bin"])
    #expect(report.succeeded, "\(report.text)")
    #expect(report.diagnostics.isEmpty, "\(report.text)")
    #expect(report.text == "14 rules in 6 files, 2 enrolled tags")
}

@Test func exampleRulesNeedTheHomeAssistantToken() {
    let report = CheckReport(sources: [rulesFolder], environment: [:])
    #expect(!report.succeeded)
    #expect(
        report.diagnostics.map(\.headline) == [
            "\(rulesFolder)/30-home-assistant.yaml:17:32: error: environment variable 'HA_TOKEN' is not set (write '${HA_TOKEN:-default}' for a default)"
        ])
}

@Test func checkReportsMissingSources() {
    let report = CheckReport(sources: ["/no/such/rules"], environment: [:])
    #expect(report.text == "/no/such/rules: error: no such file or folder\n1 error")
    #expect(
        report.json
            == #"{"diagnostics":[{"column":0,"file":"/no/such/rules","line":0,"message":"no such file or folder","severity":"error"}],"fileCount":0,"ruleCount":0,"succeeded":false,"tagCount":0}"#
    )
}

@Test(
    arguments: [
        (["TAGROUTER_RULES": "/x/rules", "HOME": "/home/u"], false, "/x/rules"),
        (["HOME": "/home/u"], true, "/etc/tagrouter/rules"),
        (["XDG_CONFIG_HOME": "/cfg", "HOME": "/home/u"], false, "/cfg/tagrouter/rules"),
        (["HOME": "/home/u"], false, "/home/u/.config/tagrouter/rules"),
    ] as [([String: String], Bool, String)])
func defaultRulesPath(environment: [String: String], isRoot: Bool, expected: String) {
    #expect(DefaultRulesPath.resolve(environment: environment, isRoot: isRoot) == expected)
}
