import Foundation
import HTTPTestSupport
import MQTTClient
import MQTTTestSupport
import TestSupport
import Testing
import VirtualTag

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Lockout through emulated taps (docs/doors.md, "Lockout"): a real pcscd and vpcd, the real router and the real
/// `tagrouter history`: three generated UIDs refused on a door reader lock it, the enrolled fob is then refused as
/// `locked-out` while the other reader still opens, and the history exports every attempt, refusals included, as
/// CSV and JSON lines; the host's status document on a real mosquitto lists the locked reader until when
/// (docs/fleet.md, "The status document"). Every line a rule's command writes is `<what>|<reason>|<uid>|<reader>`.
@Suite(.serialized, .timeLimit(.minutes(10))) struct LockoutEndToEndTests {
    static let fob: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x01]

    static func record(_ what: String) -> String {
        #"["/bin/sh", "-c", "printf '%s|%s|%s|%s\n' \"$1\" \"$2\" \"$3\" \"$4\" >> OUT", "sh", "\#(what)", "{denied.reason}", "{uid}", "{reader}"]"#
    }

    static let rules = """
        version: 1
        mqtt:
          url: "mqtt://127.0.0.1:${BROKER_PORT}"
          username: "${MQTT_USER}"
          password: "${MQTT_PASSWORD}"
          clientId: lockout-door
        rules:
          - name: front-door
            match: { uid: ["04102030405001"] }
            cooldown: 0
            lockout: { after: 3, within: 1m, for: 10m }
            run: \(record("open"))
            denied: { run: \(record("denied")) }

        """

    func card(_ uid: [UInt8]) throws -> Type2Card {
        var options = Type2Card.Options(model: .ntag213)
        options.uid = uid
        return try Type2Card(model: .ntag213, message: [], options: options)
    }

    /// Presents a tag on a slot, waits for its command's line, takes it away and returns the line.
    func tap(_ harness: RouterHarness, _ uid: [UInt8], slot: Int = 0) async throws -> String? {
        let count = harness.dispatched.count
        let tag = try harness.present(try card(uid), slot: slot)
        try await harness.waitForDispatches(count + 1)
        try await harness.remove(tag, slot: slot)
        return harness.dispatched.last
    }

    @Test("three refusals lock the door reader; the fob is refused as locked-out; the history exports every attempt")
    func lockoutEndToEnd() async throws {
        let port = try await HTTPTestServer.freePort()
        let broker = try await MosquittoBroker.start()
        let statuses = try await MQTTSubscriber(broker: broker, filter: "tagrouter/lockout-door/status")
        let environment = [
            "BROKER_PORT": "\(broker.port)", "MQTT_USER": MosquittoBroker.username,
            "MQTT_PASSWORD": MosquittoBroker.password,
        ]
        try await RouterHarness.with(
            rules: Self.rules, arguments: ["--metrics", "127.0.0.1:\(port)"], environment: environment
        ) { harness in
            let door = harness.pcscd.readerName(slot: 0)
            let other = harness.pcscd.readerName(slot: 1)
            let hex = { (uid: [UInt8]) in uid.map { String(format: "%02X", $0) }.joined() }
            #expect(try await tap(harness, Self.fob) == "open||\(hex(Self.fob))|\(door)")
            for last: UInt8 in [0x81, 0x82, 0x83] {
                let generated: [UInt8] = [0x04, 0x66, 0x77, 0x88, 0x99, 0xAA, last]
                #expect(try await tap(harness, generated) == "denied|unknown-tag|\(hex(generated))|\(door)")
            }
            try await harness.router.waitForLog("reader.locked_out")
            // The status document is published again at once, with the door reader, its rule and the end.
            let locked = try await statuses.waitFor(1) { message in
                let document = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
                return (document?["lockouts"] as? [[String: Any]])?.isEmpty == false
            }
            let document = try JSONSerialization.jsonObject(with: Data(locked[0].payload)) as? [String: Any]
            let lockout = (document?["lockouts"] as? [[String: Any]])?.first
            #expect(lockout?["reader"] as? String == door && lockout?["rule"] as? String == "front-door")
            #expect((lockout?["until"] as? String).map { $0 > (document?["updated"] as? String ?? "~") } == true)
            #expect(try await tap(harness, Self.fob) == "denied|locked-out|\(hex(Self.fob))|\(door)")
            #expect(try await tap(harness, Self.fob, slot: 1) == "open||\(hex(Self.fob))|\(other)")

            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            let metrics = String(decoding: data, as: UTF8.self)
            #expect(metrics.contains(#"tagrouter_lockouts_total{rule="front-door"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"tagrouter_denied_total{reason="locked-out"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"tagrouter_denied_total{reason="unknown-tag"} 3"#), "\(metrics)")

            // The export: every attempt on the door reader, oldest first, refusals with their reasons.
            let state = harness.directory + "/state"
            let csv = try await TagRouterBinary.run(
                ["history", "--state-dir", state, "--reader", door, "--since", "1h", "--format", "csv"],
                environment: [:])
            #expect(csv.status == 0, "\(csv.standardError)")
            let rows = csv.standardOutput.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.first == "time,reader,uid,tagName,rule,outcome,reason,uri,detail,eventId,event,presentationId")
            #expect(
                rows.dropFirst().map {
                    $0.split(separator: ",", omittingEmptySubsequences: false)[5...6].joined(separator: " ")
                }
                    == [
                        "matched ", "denied unknown-tag", "denied unknown-tag", "denied unknown-tag",
                        "denied locked-out",
                    ],
                "\(csv.standardOutput)")
            let jsonl = try await TagRouterBinary.run(
                ["history", "--state-dir", state, "--denied", "--tag", hex(Self.fob), "--format", "jsonl"],
                environment: [:])
            let lines = jsonl.standardOutput.split(separator: "\n")
            #expect(lines.count == 1, "\(jsonl.standardOutput)")
            let refusal = try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any]
            #expect(refusal?["reason"] as? String == "locked-out")
            #expect(refusal?["reader"] as? String == door)
            #expect(refusal?["rule"] as? String == "front-door")
            // The list as before: newest first, at most --limit.
            let listed = try await TagRouterBinary.run(
                ["history", "--state-dir", state, "--denied", "--limit", "2"], environment: [:])
            #expect(listed.standardOutput.contains("reason=locked-out"), "\(listed.standardOutput)")
            #expect(listed.standardOutput.split(separator: "\n").count { $0.contains(" denied ") } == 2)
        }
    }
}
