import Foundation
import HTTPTestSupport
import TestSupport
import Testing
import VirtualTag

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The door (docs/doors.md, "Doors"; docs/cli.md, "tagrouter learn"), through a real pcscd and vpcd with the
/// real router and the real `tagrouter` binary: tags enrolled by tapping them beside the running router, which
/// stands aside meanwhile and uses them after its reload; a time window, a disabled tag, an expired tag and an
/// unknown tag each refused, with the reason recorded, counted and given to the `denied:` actions; a broken tags
/// file keeps the previous one. Every line a rule's command writes is `<what>|<reason>|<name>|<groups>`.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct DoorTests {
    static func uid(_ last: UInt8) -> [UInt8] { [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, last] }
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    /// A command that appends `<what>|{denied.reason}|{tag.name}|{tag.groups}` to the output file.
    static func record(_ what: String) -> String {
        #"["/bin/sh", "-c", "printf '%s|%s|%s|%s\n' \"$1\" \"$2\" \"$3\" \"$4\" >> OUT", "sh", "\#(what)", "{denied.reason}", "{tag.name}", "{tag.groups}"]"#
    }

    /// Staff open at any time; the night shift only in a window that does not hold now (in UTC).
    static func rules(now: Date = Date()) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let hour = calendar.component(.hour, from: now)
        let start = (hour + 2) % 24
        let end = (hour + 3) % 24
        let window = String(format: "%02d:00-%02d:00", start, end == 0 ? 24 : end)
        return """
            version: 1
            defaults: { cooldown: 0, timeZone: UTC }
            rules:
              - name: front-door
                match: { tags: [staff] }
                run: \(record("open"))
                denied: { run: \(record("denied")) }
              - name: night-door
                match: { tags: [night] }
                when: [{ time: "\(window)" }]
                run: \(record("open"))
                denied: { run: \(record("denied")) }

            """
    }

    func card(_ uid: [UInt8]) throws -> Type2Card {
        var options = Type2Card.Options(model: .ntag213)
        options.uid = uid
        return try Type2Card(model: .ntag213, message: [], options: options)
    }

    /// Runs `tagrouter learn` beside the router, presents the tag once `learn` has claimed the reader, waits for
    /// the entry (or, when `learn` should refuse, for it to end), takes the tag away and returns what `learn`
    /// printed.
    func learn(_ harness: RouterHarness, _ uid: [UInt8], _ options: [String], refused: Bool = false) async throws
        -> TagRouterBinary.Output
    {
        let claim = harness.rulesDirectory + "/.learning"
        let tagsFile = harness.rulesDirectory + "/tags.yaml"
        async let run = TagRouterBinary.run(
            ["learn", "--rules", harness.rulesDirectory, "--reader", harness.pcscd.readerName(slot: 0), "--json"]
                + options, environment: harness.pcscd.environment, timeout: .seconds(60))
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: claim), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let tag = try harness.present(try card(uid))
        if refused {
            let output = try await run
            try await harness.remove(tag, slot: 0)
            return output
        }
        while !(((try? String(contentsOfFile: tagsFile, encoding: .utf8)) ?? "").contains(Self.hex(uid))),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await harness.remove(tag, slot: 0)
        return try await run
    }

    /// Presents a tag, waits for one more line that holds `line`, takes it away.
    func tap(_ harness: RouterHarness, _ uid: [UInt8], expecting line: String) async throws {
        let before = harness.dispatched.count { $0.contains(line) }
        let tag = try harness.present(try card(uid))
        try await harness.waitForDispatches(harness.dispatched.count + 1)
        #expect(harness.dispatched.count { $0.contains(line) } == before + 1, "\(harness.dispatched)")
        try await harness.remove(tag, slot: 0)
    }

    @Test("a door set up without typing a UID: three tags enrolled by tapping, a window, a disabled tag, the reasons")
    func doorEndToEnd() async throws {
        let port = try await HTTPTestServer.freePort()
        try await RouterHarness.with(rules: Self.rules(), arguments: ["--metrics", "127.0.0.1:\(port)"]) { harness in
            let alice = Self.uid(1)
            let bob = Self.uid(2)
            let carol = Self.uid(3)
            let erin = Self.uid(5)
            let enrolled = try await learn(harness, alice, ["--name", "alice", "--group", "staff"])
            #expect(enrolled.status == 0, "\(enrolled.standardError)")
            let json = try JSONSerialization.jsonObject(with: Data(enrolled.standardOutput.utf8)) as? [String: Any]
            #expect(json?["uid"] as? String == Self.hex(alice))
            #expect(json?["name"] as? String == "alice")
            #expect(json?["replaced"] as? Bool == false)
            #expect(enrolled.standardError.contains("remove the tag"))
            // The router saw the tag while learn held the reader, and did nothing for it.
            try await harness.router.waitForLog("tap.held_by_learn")
            #expect(harness.dispatched.isEmpty, "\(harness.dispatched)")
            var mode = stat()
            #expect(stat(harness.rulesDirectory + "/tags.yaml", &mode) == 0 && mode.st_mode & 0o777 == 0o640)
            #expect((try await learn(harness, bob, ["--name", "bob", "--group", "night"])).status == 0)
            #expect((try await learn(harness, carol, ["--name", "carol", "--group", "staff"])).status == 0)
            let expired = try await learn(
                harness, erin, ["--name", "erin", "--group", "staff", "--valid-until", "2020-12-31"])
            #expect(expired.status == 0, "\(expired.standardError)")
            // A hostile name is written to the file as it was given, and escaped where it is printed.
            let hostile = "Front door, \"Dan\"\n\u{1B}[2J"
            #expect((try await learn(harness, Self.uid(6), ["--name", hostile, "--group", "staff"])).status == 0)
            #expect(!FileManager.default.fileExists(atPath: harness.rulesDirectory + "/.learning"))
            // A UID already enrolled is refused without --replace, and the file is left as it was.
            let before = try String(contentsOfFile: harness.rulesDirectory + "/tags.yaml", encoding: .utf8)
            let again = try await learn(harness, alice, ["--name", "alice2"], refused: true)
            #expect(again.status == 1)
            #expect(again.standardError.contains("is already enrolled as 'alice' ("), "\(again.standardError)")
            #expect(try String(contentsOfFile: harness.rulesDirectory + "/tags.yaml", encoding: .utf8) == before)

            // The running router uses the entries after its reload, without a restart.
            try await harness.router.waitForLog("rules.reloaded")
            try await Task.sleep(for: .seconds(2))
            try await tap(harness, alice, expecting: "open||alice|staff")
            try await tap(harness, bob, expecting: "denied|outside-window|bob|night")
            try await tap(harness, Self.uid(6), expecting: "open||Front door, \"Dan\"")
            #expect(!harness.router.lines(containing: #"tag.name="Front door, \"Dan\"\n\u{1B}[2J""#).isEmpty)
            #expect(!harness.router.log.contains("\u{1B}"), "no raw escape reaches the log")
            try await tap(harness, erin, expecting: "denied|expired|erin|staff")
            try await tap(harness, Self.uid(9), expecting: "denied|unknown-tag||")

            // Disabled by `tags disable`, picked up at the next reload.
            let reloads = harness.router.lines(containing: "rules.reloaded").count
            let disabled = try await TagRouterBinary.run(
                ["tags", "disable", "carol", "--rules", harness.rulesDirectory], environment: [:])
            #expect(disabled.status == 0, "\(disabled.standardError)")
            try await harness.router.waitForLog("rules.reloaded", count: reloads + 1)
            try await tap(harness, carol, expecting: "denied|disabled|carol|staff")

            let list = try await TagRouterBinary.run(
                ["tags", "list", "--rules", harness.rulesDirectory], environment: [:])
            #expect(
                list.standardOutput.contains(#""carol"  \#(Self.hex(carol))  disabled  groups="staff""#),
                "\(list.standardOutput)")
            #expect(list.standardOutput.contains(#""erin"  \#(Self.hex(erin))  expired"#), "\(list.standardOutput)")

            // A broken tags file keeps the previous tags in force, and says where it is broken.
            let good = try String(contentsOfFile: harness.rulesDirectory + "/tags.yaml", encoding: .utf8)
            try (good + "  - name: broken\n    uid: \"zz\"\n").write(
                toFile: harness.rulesDirectory + "/tags.yaml", atomically: true, encoding: .utf8)
            try await harness.router.waitForLog("rules.reload_failed")
            #expect(!harness.router.lines(containing: "tags.yaml:").isEmpty, "the log names the broken file")
            try await tap(harness, alice, expecting: "open||alice|staff")

            // The history explains every refusal, newest first.
            let history = try await TagRouterBinary.run(
                ["history", "--denied", "--json", "--state-dir", harness.directory + "/state"], environment: [:])
            let report = try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any]
            let taps = try #require(report?["taps"] as? [[String: Any]])
            // On a mismatch, the router's and pcscd's logs say which presentation was refused.
            #expect(
                taps.compactMap { $0["reason"] as? String } == [
                    "disabled", "unknown-tag", "expired", "outside-window",
                ],
                "\(history.standardOutput)\n\(harness.router.log)\n\(harness.pcscd.log)")
            #expect(
                taps.compactMap { $0["rule"] as? String } == ["front-door", "front-door", "front-door", "night-door"])
            #expect(taps.map { $0["tagName"] as? String } == ["carol", nil, "erin", "bob"])
            #expect(taps.allSatisfy { $0["outcome"] as? String == "denied" })
            let text = try await TagRouterBinary.run(
                ["history", "--denied", "--state-dir", harness.directory + "/state"], environment: [:])
            #expect(text.standardOutput.contains(#"rule=night-door"#), "\(text.standardOutput)")
            #expect(text.standardOutput.contains(#"tag="bob"  reason=outside-window"#), "\(text.standardOutput)")
            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            let metrics = String(decoding: data, as: UTF8.self)
            for reason in ["outside-window", "expired", "unknown-tag", "disabled"] {
                #expect(metrics.contains(#"tagrouter_denied_total{reason="\#(reason)"} 1"#), "\(metrics)")
            }
        }
    }
}
