import Foundation
import MQTTClient
import MQTTTestSupport
import TestSupport
import Testing
import VirtualTag

/// The decision stream (docs/operations.md, "The decision stream") through a real pcscd, vpcd and mosquitto:
/// every decision on the door reader (accepted, denied with its reason, ignored) arrives on
/// `<topicPrefix>/decisions`, in order, at QoS 1 through the outbox; a tap on a reader no door rule watches
/// publishes nothing.
@Suite(.serialized, .timeLimit(.minutes(10))) struct DecisionStreamTests {
    static let fob: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x01]
    static let stranger: [UInt8] = [0x04, 0x66, 0x77, 0x88, 0x99, 0xAA, 0x81]

    @Test func everyDecisionOnTheDoorReaderIsPublishedInOrder() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker)
        let rules = """
            version: 1
            mqtt:
              url: "mqtt://127.0.0.1:\(broker.port)"
              username: "${MQTT_USER}"
              password: "${MQTT_PASSWORD}"
              clientId: front-door
              topicPrefix: site/front
              decisions: true
            defaults: { cooldown: 0 }
            rules:
              - name: front-door
                match: { reader: "*00 00", domains: [door.example], uid: ["04102030405001"] }
                run: ["/bin/true"]
                denied: { run: ["/bin/true"] }
              - name: desk
                match: { reader: "*00 01", any: true }
                run: ["/bin/true"]

            """
        let environment = [
            "MQTT_USER": MosquittoBroker.username, "MQTT_PASSWORD": MosquittoBroker.password,
            "TAGROUTER_MQTT_RECONNECT_MIN_MS": "200", "TAGROUTER_MQTT_RECONNECT_MAX_MS": "1000",
        ]
        try await RouterHarness.with(rules: rules, environment: environment) { harness in
            try await harness.router.waitForLog("mqtt connected")
            let door = harness.pcscd.readerName(slot: 0)
            // The desk's tap first: had it been published, it would come before the door's in the outbox's order.
            let taps: [(uri: String, uid: [UInt8], slot: Int, line: String)] = [
                ("https://door.example/open", Self.fob, 1, " info tap "),
                ("https://door.example/open", Self.fob, 0, " info tap "),
                ("https://door.example/open", Self.stranger, 0, " tap.denied "),
                ("https://elsewhere.example/", Self.fob, 0, " tap.ignored"),
            ]
            for (uri, uid, slot, line) in taps {
                let before = harness.router.lines(containing: line).count
                let tag = try harness.present(uri: uri, slot: slot, uid: uid)
                try await harness.router.waitForLog(line, count: before + 1)
                try await harness.remove(tag, slot: slot)
            }
            let topic = "site/front/decisions"
            let published = try await subscriber.waitFor(3) { $0.topic == topic }
            let documents = published.map {
                (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: String]) ?? [:]
            }
            #expect(documents.map { $0["decision"] } == ["accepted", "denied", "ignored"], "\(documents)")
            #expect(documents.allSatisfy { $0["reader"] == door }, "\(documents)")
            #expect(documents.map { $0["uid"] } == ["04102030405001", "0466778899AA81", "04102030405001"])
            #expect(documents[0]["rule"] == "front-door")
            #expect(documents[1]["rule"] == "front-door" && documents[1]["reason"] == "unknown-tag")
            #expect(documents[2]["rule"] == nil && documents[2]["reason"] == nil)
            #expect(documents.allSatisfy { ($0["eventId"]?.count ?? 0) == 36 && $0["time"]?.hasSuffix("Z") == true })
            #expect(subscriber.messages(on: topic).count == 3)
            // Each went through the outbox at QoS 1: the history lists them as MQTT deliveries.
            let history = try await TagRouterBinary.run(
                ["history", "--json", "--state-dir", harness.directory + "/state"], environment: [:])
            let report = try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any]
            let deliveries = (report?["deliveries"] as? [[String: Any]]) ?? []
            #expect(
                deliveries.filter { $0["url"] as? String == topic && $0["kind"] as? String == "mqtt" }.count == 3,
                "\(history.standardOutput)")
        }
        await broker.stop()
    }
}
