import Foundation
import SUNMessage
import TagRules
import TagsFile
import Testing

/// Doors (docs/doors.md, "Doors"): the tags file, `tags:`, `when:` and `timeZone:` across daylight-saving
/// changes, refusals and their reasons, `denied:` actions, the new placeholders, and mistakes at file:line:col.
@Suite struct DoorRulesTests {
    static let tagsFile = """
        version: 1
        tags:
          - name: alice
            uid: "04A1B2C3D4E580"
            groups: [staff]
          - name: bob
            uid: "04:11:22:33:44:55:66"
            groups: [guests]
          - name: carol
            uid: "0422222222222222"
            groups: [staff]
            disabled: true
          - name: dave
            uid: "0433333333333333"
            groups: [staff]
            validFrom: 2027-01-01
            validUntil: 2027-06-30
        """

    static let doorRules = """
        version: 1
        defaults:
          timeZone: Europe/Berlin
        rules:
          - name: front-door
            match:
              reader: "*Door*"
              tags: [staff]
            when:
              - days: [mon, tue, wed, thu, fri]
                time: "07:00-19:00"
            run: [/usr/local/bin/door, open, "{tag.name}", "{tag.groups}"]
            denied:
              run: [/usr/local/bin/buzzer, "{denied.reason}", "{tag.name}"]
        """

    static func load(tags: String = tagsFile, rules: String = doorRules) throws -> RuleSet {
        try RuleSet.load(files: [("rules/tags.yaml", tags), ("rules/door.yaml", rules)], environment: [:]).get()
    }

    static func event(_ uid: String?, reader: String = "ACS Door 00") -> TagEvent {
        TagEvent(uid: uid, reader: reader, tech: "type2")
    }

    /// An instant in RFC 3339.
    static func at(_ text: String) -> Date {
        try! Date.ISO8601FormatStyle().parse(text)
    }

    // A Tuesday in December (CET, UTC+1): 2026-12-01.
    static let officeHours = at("2026-12-01T10:00:00Z")
    static let evening = at("2026-12-01T19:30:00Z")

    @Test("an enrolled tag of a listed group opens inside the window, with its name and groups")
    func admitted() throws {
        let rules = try Self.load()
        let decision = rules.decide(Self.event("04A1B2C3D4E580"), at: Self.officeHours)
        #expect(decision.matches.map(\.rule.name) == ["front-door"])
        #expect(decision.refusal == nil)
        #expect(decision.event.known?.name == "alice")
        let actions = try decision.matches[0].rule.render(event: decision.event, eventID: "e", time: "t")
        guard case .run(let argv, let environment, _, _) = actions[0] else {
            Issue.record("expected a command")
            return
        }
        #expect(argv == ["/usr/local/bin/door", "open", "alice", "staff"])
        #expect(environment["TAG_NAME"] == "alice")
        #expect(environment["TAG_GROUPS"] == "staff")
        #expect(environment["TAG_DENIED_REASON"] == "")
    }

    struct Refused: CustomStringConvertible, Sendable {
        var name: String
        var uid: String?
        var time: Date
        var reason: DenialReason
        var description: String { name }
    }

    static let refusals: [Refused] = [
        Refused(name: "outside the window", uid: "04A1B2C3D4E580", time: evening, reason: .outsideWindow),
        Refused(name: "on a Saturday", uid: "04A1B2C3D4E580", time: at("2026-12-05T10:00:00Z"), reason: .outsideWindow),
        Refused(name: "an unknown UID", uid: "04FFFFFFFFFFFF", time: officeHours, reason: .unknownTag),
        Refused(name: "a tag without UID", uid: nil, time: officeHours, reason: .unknownTag),
        Refused(name: "an enrolled tag of another group", uid: "04112233445566", time: officeHours, reason: .notListed),
        Refused(name: "a disabled tag", uid: "0422222222222222", time: officeHours, reason: .disabled),
        Refused(name: "before validFrom", uid: "0433333333333333", time: officeHours, reason: .notYetValid),
        Refused(
            name: "after validUntil", uid: "0433333333333333", time: at("2027-07-01T10:00:00Z"), reason: .expired),
    ]

    @Test("each refusal has its reason, and runs the denied actions with it", arguments: refusals)
    func refusal(_ refused: Refused) throws {
        let rules = try Self.load()
        let decision = rules.decide(Self.event(refused.uid), at: refused.time)
        #expect(decision.matches.isEmpty)
        let refusal = try #require(decision.refusal)
        #expect(refusal.rule.name == "front-door")
        #expect(refusal.reason == refused.reason)
        let actions = try refusal.rule.render(
            event: decision.event, eventID: "e", time: "t", denial: refusal.reason)
        guard case .run(let argv, let environment, _, _) = actions.first else {
            Issue.record("expected the buzzer")
            return
        }
        #expect(argv == ["/usr/local/bin/buzzer", refused.reason.rawValue, decision.event.known?.name ?? ""])
        #expect(environment["TAG_DENIED_REASON"] == refused.reason.rawValue)
    }

    @Test("validity days are inclusive and read in the rule's time zone")
    func validityInTheRulesZone() throws {
        func door(_ zone: String) throws -> RuleSet {
            try Self.load(
                rules: """
                    version: 1
                    rules:
                      - name: door
                        match: {tags: [staff]}
                        timeZone: \(zone)
                        run: [/bin/true]
                    """)
        }
        let berlin = try door("Europe/Berlin")
        let newYork = try door("America/New_York")
        let dave = Self.event("0433333333333333")
        func admits(_ rules: RuleSet, _ time: String) -> Bool { !rules.decide(dave, at: Self.at(time)).matches.isEmpty }
        // 2027-06-30 23:59 in Berlin (CEST, UTC+2) is the last valid minute there; a minute later, expired.
        #expect(admits(berlin, "2027-06-30T21:59:00Z"))
        #expect(!admits(berlin, "2027-06-30T22:00:00Z"))
        #expect(berlin.decide(dave, at: Self.at("2027-06-30T22:00:00Z")).refusal?.reason == .expired)
        // In New York (EDT, UTC-4) the same day ends six hours later.
        #expect(admits(newYork, "2027-07-01T03:59:00Z"))
        #expect(!admits(newYork, "2027-07-01T04:00:00Z"))
        // validFrom 2027-01-01 begins at local midnight.
        #expect(!admits(berlin, "2026-12-31T22:59:00Z"))
        #expect(berlin.decide(dave, at: Self.at("2026-12-31T22:59:00Z")).refusal?.reason == .notYetValid)
        #expect(admits(berlin, "2026-12-31T23:00:00Z"))
    }

    struct Instant: CustomStringConvertible, Sendable {
        var zone: String
        var window: String
        var utc: String
        var inside: Bool
        var why: String
        var description: String { "\(zone) \(window) at \(utc): \(why)" }
    }

    /// Instants around the daylight-saving changes of 2026 (Europe/Berlin: 29 March and 25 October; New York:
    /// 8 March and 1 November), worked out from the zones' offsets by hand.
    static let instants: [Instant] = [
        // Berlin, spring forward: 07:00 is 06:00Z the day before (CET) and 05:00Z that day (CEST).
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-03-28T05:59:00Z", inside: false, why: "06:59 CET"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-03-28T06:00:00Z", inside: true, why: "07:00 CET"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-03-29T04:59:00Z", inside: false, why: "06:59 CEST"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-03-29T05:00:00Z", inside: true, why: "07:00 CEST"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-03-29T16:59:00Z", inside: true, why: "18:59 CEST"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-03-29T17:00:00Z", inside: false, why: "19:00 CEST"),
        // The hour that does not exist: 01:59 CET is followed by 03:00 CEST.
        Instant(
            zone: "Europe/Berlin", window: "02:00-03:00", utc: "2026-03-29T00:59:00Z", inside: false, why: "01:59 CET"),
        Instant(
            zone: "Europe/Berlin", window: "02:00-03:00", utc: "2026-03-29T01:00:00Z", inside: false, why: "03:00 CEST"),
        // Berlin, fall back: 02:00-02:59 happens twice, and both are inside.
        Instant(
            zone: "Europe/Berlin", window: "02:00-03:00", utc: "2026-10-25T00:30:00Z", inside: true, why: "02:30 CEST"),
        Instant(
            zone: "Europe/Berlin", window: "02:00-03:00", utc: "2026-10-25T01:30:00Z", inside: true, why: "02:30 CET"),
        Instant(
            zone: "Europe/Berlin", window: "02:00-03:00", utc: "2026-10-25T02:00:00Z", inside: false, why: "03:00 CET"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-10-25T05:59:00Z", inside: false, why: "06:59 CET"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-10-25T06:00:00Z", inside: true, why: "07:00 CET"),
        Instant(
            zone: "Europe/Berlin", window: "07:00-19:00", utc: "2026-10-24T05:00:00Z", inside: true, why: "07:00 CEST"),
        // New York, spring forward on Sunday 8 March, a Saturday-night window across midnight.
        Instant(
            zone: "America/New_York", window: "sat 22:00-06:00", utc: "2026-03-08T02:59:00Z", inside: false,
            why: "Sat 21:59 EST"),
        Instant(
            zone: "America/New_York", window: "sat 22:00-06:00", utc: "2026-03-08T03:00:00Z", inside: true,
            why: "Sat 22:00 EST"),
        Instant(
            zone: "America/New_York", window: "sat 22:00-06:00", utc: "2026-03-08T09:59:00Z", inside: true,
            why: "Sun 05:59 EDT"),
        Instant(
            zone: "America/New_York", window: "sat 22:00-06:00", utc: "2026-03-08T10:00:00Z", inside: false,
            why: "Sun 06:00 EDT"),
        Instant(
            zone: "America/New_York", window: "sat 22:00-06:00", utc: "2026-03-09T03:00:00Z", inside: false,
            why: "Sun 23:00 EDT"),
        // New York, fall back on 1 November: 01:00-01:59 happens twice.
        Instant(
            zone: "America/New_York", window: "01:00-02:00", utc: "2026-11-01T04:59:00Z", inside: false,
            why: "00:59 EDT"),
        Instant(
            zone: "America/New_York", window: "01:00-02:00", utc: "2026-11-01T05:30:00Z", inside: true, why: "01:30 EDT"
        ),
        Instant(
            zone: "America/New_York", window: "01:00-02:00", utc: "2026-11-01T06:30:00Z", inside: true, why: "01:30 EST"
        ),
        Instant(
            zone: "America/New_York", window: "01:00-02:00", utc: "2026-11-01T07:00:00Z", inside: false,
            why: "02:00 EST"),
        Instant(
            zone: "America/New_York", window: "07:00-19:00", utc: "2026-11-01T11:59:00Z", inside: false,
            why: "06:59 EST"),
        Instant(
            zone: "America/New_York", window: "07:00-19:00", utc: "2026-11-01T12:00:00Z", inside: true, why: "07:00 EST"
        ),
    ]

    @Test("windows follow the wall clock across daylight-saving changes", arguments: instants)
    func acrossDaylightSaving(_ instant: Instant) throws {
        let parts = instant.window.split(separator: " ")
        let days = parts.count == 2 ? "days: [\(parts[0])], " : ""
        let rules = try Self.load(
            rules: """
                version: 1
                rules:
                  - name: door
                    match: {uid: ["04A1B2C3D4E580"]}
                    when: [{\(days)time: "\(parts.last!)"}]
                    timeZone: \(instant.zone)
                    run: [/bin/true]
                """)
        let decision = rules.decide(Self.event("04A1B2C3D4E580"), at: Self.at(instant.utc))
        #expect((decision.refusal == nil) == instant.inside)
        #expect(decision.matches.isEmpty == !instant.inside)
        if !instant.inside { #expect(decision.refusal?.reason == .outsideWindow) }
    }

    @Test("a refusal is recorded only when no rule decides; continue rules that matched still run")
    func onlyWhenNothingDecides() throws {
        let rules = try Self.load(
            rules: """
                version: 1
                rules:
                  - name: door-log
                    match: {reader: "*Door*", any: true}
                    continue: true
                    run: [/bin/true]
                  - name: front-door
                    match: {reader: "*Door*", tags: [staff]}
                    run: [/bin/true]
                  - name: anyone-else
                    match: {reader: "*Desk*", any: true}
                    run: [/bin/true]
                """)
        let unknown = rules.decide(Self.event("04FFFFFFFFFFFF"), at: Self.officeHours)
        #expect(unknown.matches.map(\.rule.name) == ["door-log"])
        #expect(unknown.refusal?.reason == .unknownTag)
        // On another reader, the door rule's other conditions do not hold: no refusal.
        let desk = rules.decide(Self.event("04FFFFFFFFFFFF", reader: "Desk"), at: Self.officeHours)
        #expect(desk.matches.map(\.rule.name) == ["anyone-else"])
        #expect(desk.refusal == nil)
    }

    @Test("a plain uid rule stays silent; the refusal that concerns a listed tag wins")
    func whichRefusal() throws {
        let rules = try Self.load(
            rules: """
                version: 1
                defaults: {timeZone: Europe/Berlin}
                rules:
                  - name: desk-fob
                    match: {uid: ["0499999999999999"]}
                    run: [/bin/true]
                  - name: guests-door
                    match: {tags: [guests]}
                    run: [/bin/true]
                  - name: staff-door
                    match: {tags: [staff]}
                    when: [{time: "07:00-19:00"}]
                    run: [/bin/true]
                """)
        let alice = rules.decide(Self.event("04A1B2C3D4E580"), at: Self.evening)
        #expect(alice.refusal?.rule.name == "staff-door")
        #expect(alice.refusal?.reason == .outsideWindow)
        let stranger = rules.decide(Self.event("04FFFFFFFFFFFF"), at: Self.evening)
        #expect(stranger.refusal?.rule.name == "guests-door")
        #expect(stranger.refusal?.reason == .unknownTag)
        let desk = try Self.load(
            rules: "version: 1\nrules:\n  - name: desk\n    match: {uid: [\"0499\"]}\n    run: [/bin/true]\n")
        #expect(desk.decide(Self.event("04FFFFFFFFFFFF"), at: Self.evening).refusal == nil)
    }

    @Test("match shows the refusal, and explain marks the refusing rule with its reason")
    func matchReport() throws {
        let rules = try Self.load()
        let report = MatchReport(
            event: Self.event("04A1B2C3D4E580"), ruleSet: rules, explaining: true, eventID: "e", time: "t",
            at: Self.evening)
        #expect(report.isDenied && report.isIgnored)
        #expect(report.text.contains("refused by front-door: outside-window"))
        #expect(
            report.text.contains("front-door denied: run [\"/usr/local/bin/buzzer\", \"outside-window\", \"alice\"]"))
        #expect(
            report.text.contains(
                "refused (outside-window): when: tue 2026-12-01 20:30 Europe/Berlin is outside mon,tue,wed,thu,fri 07:00-19:00"
            ))
        #expect(report.json.contains(#""denied":{"actions":"#))
        #expect(report.json.contains(#""reason":"outside-window""#))
    }

    @Test("hostile names are escaped where they are printed")
    func hostileNames() throws {
        let long = String(repeating: "x", count: 10_000)
        let rules = try Self.load(
            tags: """
                version: 1
                tags:
                  - name: "evil\\nname\\u001B[31m"
                    uid: "04A1B2C3D4E580"
                    groups: [staff]
                  - name: "\(long)"
                    uid: "0455"
                """)
        #expect(rules.tags.entries.map(\.name) == ["evil\nname\u{1B}[31m", long])
        let report = MatchReport(
            event: Self.event("04A1B2C3D4E580"), ruleSet: rules, explaining: true, eventID: "e", time: "t",
            at: Self.officeHours)
        #expect(report.text.contains(#"tag: 'evil\nname\u{1B}[31m' (enrolled)"#))
        #expect(!report.text.contains("\u{1B}"))
        // In a command's argument the name is passed as it is: no shell sees it.
        let actions = report.actions
        guard case .run(let argv, _, _, _) = actions.first else {
            Issue.record("expected a command")
            return
        }
        #expect(argv[2] == "evil\nname\u{1B}[31m")
    }

    struct Mistake: CustomStringConvertible, Sendable {
        var name: String
        var tags: String?
        var rules: String?
        var expected: String
        var description: String { name }
    }

    static func tagsWith(_ entry: String) -> String { "version: 1\ntags:\n  - name: alice\n" + entry }
    static func ruleWith(_ keys: String) -> String {
        "version: 1\nrules:\n  - name: door\n    match: {tags: [staff]}\n    run: [/bin/true]\n" + keys
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "a UID that is not hex", tags: tagsWith("    uid: \"04G1\"\n"),
            expected: "rules/tags.yaml:4:10: error: UID '04G1' is not hex (expected like 04A1B2C3D4E580 or 04:a1:b2:c3)"
        ),
        Mistake(
            name: "a tag without uid", tags: tagsWith("    groups: [staff]\n"),
            expected: "rules/tags.yaml:3:5: error: in tag #1 has no 'uid'"),
        Mistake(
            name: "a day that does not exist", tags: tagsWith("    uid: \"04\"\n    validUntil: 2027-02-29\n"),
            expected: "rules/tags.yaml:5:17: error: 'validUntil' '2027-02-29' is not a day like 2026-12-01 (YYYY-MM-DD)"
        ),
        Mistake(
            name: "validUntil before validFrom",
            tags: tagsWith("    uid: \"04\"\n    validFrom: 2027-02-01\n    validUntil: 2027-01-31\n"),
            expected: "rules/tags.yaml:3:5: error: in tag #1: 'validUntil' 2027-01-31 is before 'validFrom' 2027-02-01"),
        Mistake(
            name: "a UID enrolled twice", tags: tagsWith("    uid: \"04aa\"\n  - name: bob\n    uid: \"04:AA\"\n"),
            expected:
                "rules/tags.yaml:5:5: error: UID 04AA is enrolled twice (first as 'alice' at rules/tags.yaml:3:11)"),
        Mistake(
            name: "a name used twice", tags: tagsWith("    uid: \"04aa\"\n  - name: alice\n    uid: \"04bb\"\n"),
            expected: "rules/tags.yaml:5:5: error: duplicate tag name 'alice' (first defined at rules/tags.yaml:3:11)"),
        Mistake(
            name: "sun, not supported yet", tags: tagsWith("    sun: \"04DE5F1EACC040\"\n"),
            expected:
                "rules/tags.yaml:4:5: error: 'sun' (tags identified by a verified SUN message) is not supported yet; enroll the tag by 'uid'"
        ),
        Mistake(
            name: "an unknown key in an entry", tags: tagsWith("    uid: \"04\"\n    group: [staff]\n"),
            expected: "rules/tags.yaml:5:5: error: unknown key 'group' in tag #1 (did you mean 'groups'?)"),
        Mistake(
            name: "an unknown day", rules: ruleWith("    when: [{days: [mon, tues]}]\n"),
            expected: "rules/door.yaml:6:25: error: unknown day 'tues' (expected sun, mon, tue, wed, thu, fri, sat)"),
        Mistake(
            name: "a span that is not one", rules: ruleWith("    when: [{time: \"7-19\"}]\n"),
            expected:
                "rules/door.yaml:6:19: error: 'time' '7-19' is not a span like \"07:00-19:00\" or \"22:00-06:00\" (HH:MM-HH:MM, 24:00 as an end, start and end different)"
        ),
        Mistake(
            name: "an empty window", rules: ruleWith("    when: [{}]\n"),
            expected: "rules/door.yaml:6:12: error: a window of 'when' needs 'days', 'time' or both in rule 'door'"),
        Mistake(
            name: "an unknown time zone",
            rules: ruleWith("    when: [{time: \"07:00-19:00\"}]\n    timeZone: Europe/Berlim\n"),
            expected:
                "rules/door.yaml:7:15: error: unknown time zone 'Europe/Berlim' (did you mean 'Europe/Berlin'?) (write a tz database name like Europe/Berlin)"
        ),
        Mistake(
            name: "denied without an action", rules: ruleWith("    denied: {}\n"),
            expected:
                "rules/door.yaml:6:13: error: 'denied' has no action in rule 'door' (add 'run', 'open', 'webhook', 'mqtt' or 'actions')"
        ),
        Mistake(
            name: "a placeholder that does not exist",
            rules: ruleWith("    denied: {run: [/bin/echo, \"{denied.why}\"]}\n"),
            expected: "rules/door.yaml:6:32: error: unknown placeholder '{denied.why}'"),
    ]

    @Test("every mistake is reported at its file, line and column", arguments: mistakes)
    func mistake(_ mistake: Mistake) {
        let result = RuleSet.load(
            files: [
                ("rules/tags.yaml", mistake.tags ?? Self.tagsFile),
                ("rules/door.yaml", mistake.rules ?? Self.doorRules),
            ], environment: [:])
        #expect(result.ruleSet == nil)
        let errors = result.diagnostics.filter { $0.severity == .error }.map(\.headline)
        #expect(errors.contains { $0.hasPrefix(mistake.expected) }, "\(errors)")
    }

    @Test("a tags entry that names nothing enrolled is a warning, not an error")
    func unknownGroupWarns() throws {
        let result = RuleSet.load(
            files: [
                ("rules/tags.yaml", Self.tagsFile),
                ("rules/door.yaml", Self.ruleWith("").replacingOccurrences(of: "staff", with: "stafff")),
            ],
            environment: [:])
        #expect(result.ruleSet != nil)
        #expect(
            result.diagnostics.map(\.headline).contains {
                $0.hasPrefix("rules/door.yaml:4:20: warning: 'tags': 'stafff' names no enrolled tag and no group")
            }, "\(result.diagnostics)")
    }

    @Test("a folder's tags.yaml is the tags file, not a rules file")
    func folderTagsFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.tagsFile.write(toFile: folder + "/tags.yaml", atomically: true, encoding: .utf8)
        try Self.doorRules.write(toFile: folder + "/door.yaml", atomically: true, encoding: .utf8)
        let rules = try RuleSet.load(sources: [folder], environment: [:]).get()
        #expect(rules.rules.map(\.name) == ["front-door"])
        #expect(rules.tags.entries.map(\.name) == ["alice", "bob", "carol", "dave"])
        #expect(rules.tags.file == folder + "/tags.yaml")
        #expect(LearnClaim.rulesFolder(of: [folder]) == folder)
    }
}

/// `sun:` (docs/doors.md, "SUN: tags that prove themselves"): AN12196's URL verified through a rule, keys only
/// from the environment, and every mistake at its place.
@Suite struct SUNRulesTests {
    static let environment = ["META": String(repeating: "0", count: 32), "FILE": String(repeating: "0", count: 32)]

    static func rules(_ sun: String) -> String {
        """
        version: 1
        rules:
          - name: door
            match:
              domains: [ntag.nxp.com]
              sun: \(sun)
            run: [/usr/local/bin/door, "{sun.uid}", "{sun.counter}"]
        """
    }

    /// AN12196's example: its MAC covers no URL text (`macInput: none`).
    static let sun = #"{piccData: e, mac: c, metaReadKey: "${META}", fileReadKey: "${FILE}", macInput: none}"#

    static let an12196 = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"

    @Test("AN12196's URL opens with its UID and counter; a changed digit is a bad MAC")
    func verified() throws {
        let rules = try RuleSet.load(
            files: [("door.yaml", Self.rules(Self.sun))],
            environment: Self.environment
        ).get()
        let event = TagEvent(uid: "04DE5F1EACC040", reader: "Door", tech: "type4", uri: Self.an12196)
        let decision = rules.decide(event, at: Date())
        #expect(decision.event.sun?.uid == "04DE5F1EACC040")
        #expect(decision.event.sun?.counter == 61)
        let actions = try decision.matches[0].rule.render(event: decision.event, eventID: "e", time: "t")
        guard case .run(let argv, let environment, _, _) = actions.first else {
            Issue.record("expected the door command")
            return
        }
        #expect(argv == ["/usr/local/bin/door", "04DE5F1EACC040", "61"])
        #expect(environment["TAG_SUN_COUNTER"] == "61")
        let tampered = TagEvent(
            uid: nil, reader: "Door", tech: "type4", uri: Self.an12196.replacingOccurrences(of: "7086", with: "7087"))
        #expect(rules.decide(tampered, at: Date()).refusal?.reason == .badMAC)
        let missing = TagEvent(uid: nil, reader: "Door", tech: "type4", uri: "https://ntag.nxp.com/424?c=00")
        #expect(rules.decide(missing, at: Date()).refusal?.reason == .notSUN)
        let explained = rules.explain(event).first
        #expect(
            explained?.reason
                == "all of: domains, sun; sun: verified, UID 04DE5F1EACC040, counter 61 (macInput: none: the URL "
                + "around the message is not proved)")
        // A rule that wants the URL proved (the default) refuses AN12196's message: its MAC covers nothing.
        let strict = try RuleSet.load(
            files: [("door.yaml", Self.rules(Self.sun.replacingOccurrences(of: ", macInput: none", with: "")))],
            environment: Self.environment
        ).get()
        #expect(strict.decide(event, at: Date()).refusal?.reason == .badMAC)
        let explainedBad = rules.explain(tampered).first
        #expect(explainedBad?.reason == "sun: the MAC does not match (an altered URL, or the wrong file read key)")
    }

    @Test("with sun, uid and tags look at the UID the message names, not the one the reader saw")
    func gatesUseTheVerifiedUID() throws {
        let rules = try RuleSet.load(
            files: [
                ("tags.yaml", "version: 1\ntags:\n  - {name: front, uid: \"04DE5F1EACC040\", groups: [staff]}\n"),
                (
                    "door.yaml",
                    Self.rules(Self.sun).replacingOccurrences(of: "domains:", with: "tags: [staff]\n      domains:")
                ),
            ], environment: Self.environment
        ).get()
        // A random UID from the reader, the real one inside the message.
        let event = TagEvent(uid: "08AABBCC", reader: "Door", tech: "type4", uri: Self.an12196)
        let decision = rules.decide(event, at: Date())
        #expect(decision.matches.map(\.rule.name) == ["door"])
        #expect(decision.event.known?.name == "front")
        let stranger = TagEvent(
            uid: "04DE5F1EACC040", reader: "Door", tech: "type4", uri: "https://ntag.nxp.com/424?e=00&c=00")
        #expect(rules.decide(stranger, at: Date()).refusal?.reason == .notSUN)
    }

    @Test("diversify: each tag's file read key is AN10922's from the master key and its own UID")
    func diversifiedKeys() throws {
        let master = [UInt8](repeating: 0x5A, count: 16)
        let suffix: [UInt8] = [0x30, 0x42, 0xF5, 0x4E, 0x58, 0x50, 0x20, 0x41, 0x62, 0x75]
        func url(uid: [UInt8], keyOf owner: [UInt8], counter: UInt32) throws -> String {
            let fileKey = try SUNCrypto.diversified(masterKey: master, input: owner + suffix)
            let picc = try SUNCrypto.piccData(
                uid: uid, counter: counter, padding: [0, 0, 0, 0, 0], metaReadKey: [UInt8](repeating: 0, count: 16))
            let mac = try SUNCrypto.mac(fileReadKey: fileKey, uid: uid, counter: counter, input: [])
            func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
            return "https://ntag.nxp.com/424?e=\(hex(picc))&c=\(hex(mac))"
        }
        var environment = Self.environment
        environment["MASTER"] = String(repeating: "5A", count: 16)
        let sun =
            #"{piccData: e, mac: c, metaReadKey: "${META}", fileReadKey: "${MASTER}", macInput: none, diversify: {applicationID: "3042F5", systemIdentifier: "4E585020416275"}}"#
        let rules = try RuleSet.load(files: [("door.yaml", Self.rules(sun))], environment: environment).get()
        let alice: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
        let bob: [UInt8] = [0x04, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC]
        let own = TagEvent(uid: nil, reader: "Door", tech: "type4", uri: try url(uid: alice, keyOf: alice, counter: 5))
        #expect(rules.decide(own, at: Date()).event.sun?.uid == "04112233445566")
        // Bob's tag holding the key diversified for Alice: the MAC does not match Bob's key.
        let wrong = TagEvent(uid: nil, reader: "Door", tech: "type4", uri: try url(uid: bob, keyOf: alice, counter: 5))
        #expect(rules.decide(wrong, at: Date()).refusal?.reason == .badMAC)
        let short = RuleSet.load(
            files: [("door.yaml", Self.rules(sun.replacingOccurrences(of: "4E585020416275", with: "4E58")))],
            environment: environment)
        #expect(
            short.diagnostics.map(\.headline).contains {
                $0.contains("'diversify' needs 'systemIdentifier' of 6 to 20 bytes")
            })
    }

    struct Mistake: CustomStringConvertible, Sendable {
        var name: String
        var sun: String
        var expected: String
        var description: String { name }
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "a key written in the file",
            sun: #"{piccData: e, mac: c, metaReadKey: "00000000000000000000000000000000", fileReadKey: "${FILE}"}"#,
            expected: #"door.yaml:6:47: error: 'metaReadKey' must come from the environment, like "${DOOR_KEY}""#),
        Mistake(
            name: "a key of the wrong length",
            sun: #"{piccData: e, mac: c, metaReadKey: "${META}", fileReadKey: "${SHORT}"}"#,
            expected: "door.yaml:6:71: error: 'fileReadKey' (${SHORT}) must be 16 bytes written as 32 hex digits"),
        Mistake(
            name: "a key with a default written in the file",
            sun:
                #"{piccData: e, mac: c, metaReadKey: "${UNSET:-00000000000000000000000000000000}", fileReadKey: "${FILE}"}"#,
            expected: #"door.yaml:6:47: error: 'metaReadKey' must come from the environment, like "${DOOR_KEY}""#),
        Mistake(
            name: "no mac", sun: #"{piccData: e, metaReadKey: "${META}", fileReadKey: "${FILE}"}"#,
            expected: "door.yaml:6:12: error: 'sun' needs 'mac' (the query item holding the MAC)"),
        Mistake(
            name: "piccData without metaReadKey", sun: #"{piccData: e, mac: c, fileReadKey: "${FILE}"}"#,
            expected: "door.yaml:6:12: error: 'sun' with 'piccData' needs 'metaReadKey'"),
        Mistake(
            name: "plain without counter", sun: #"{uid: u, mac: c, fileReadKey: "${FILE}"}"#,
            expected: "door.yaml:6:12: error: 'sun' in plain mirroring needs both 'uid' and 'counter'"),
    ]

    @Test("every mistake is reported at its place, and no key is ever shown", arguments: mistakes)
    func mistake(_ mistake: Mistake) {
        var environment = Self.environment
        environment["SHORT"] = "0011"
        let result = RuleSet.load(files: [("door.yaml", Self.rules(mistake.sun))], environment: environment)
        #expect(result.ruleSet == nil)
        let errors = result.diagnostics.filter { $0.severity == .error }.map(\.headline)
        #expect(errors.contains { $0.hasPrefix(mistake.expected) }, "\(errors)")
        #expect(!errors.joined().contains("0011"))
    }
}

/// `confirm:` (docs/rules.md, "Confirmation before open"): which tags a rule trusts to open a link without asking.
@Suite struct ConfirmRulesTests {
    static func rule(_ match: String, _ extra: String = "") throws -> Rule {
        try RuleSet.load(
            files: [("r.yaml", "version: 1\nrules:\n  - name: r\n    match: \(match)\n    open: \"{uri}\"\n\(extra)")],
            environment: [:]
        ).get().rules[0]
    }

    static let event = TagEvent(uid: "04A1", reader: "Desk", tech: "type2", uri: "https://example.com/x")

    @Test("a domain asks by default; a listed UID does not; always and never say so")
    func trust() throws {
        #expect(try Self.rule("{domains: [example.com]}").asksBeforeOpening(Self.event))
        #expect(try !Self.rule("{uid: ['04A1']}").asksBeforeOpening(Self.event))
        #expect(try !Self.rule("{domains: [example.com]}", "    confirm: never\n").asksBeforeOpening(Self.event))
        #expect(try Self.rule("{uid: ['04A1']}", "    confirm: always\n").asksBeforeOpening(Self.event))
    }

    @Test("a value that is not one of the three is an error at its place; without open, a warning")
    func mistakes() {
        let bad = RuleSet.load(
            files: [
                ("r.yaml", "version: 1\nrules:\n  - name: r\n    match: {any: true}\n    open: x\n    confirm: maybe\n")
            ],
            environment: [:])
        #expect(
            bad.diagnostics.map(\.headline) == [
                "r.yaml:6:14: error: 'confirm' is always, untrusted or never, not 'maybe' in rule 'r'"
            ])
        let useless = RuleSet.load(
            files: [
                (
                    "r.yaml",
                    "version: 1\nrules:\n  - name: r\n    match: {any: true}\n    run: [/bin/true]\n    confirm: never\n"
                )
            ],
            environment: [:])
        #expect(
            useless.diagnostics.map(\.headline) == [
                "r.yaml:6:5: warning: 'confirm' has no effect without an 'open' action in rule 'r'"
            ])
    }
}
