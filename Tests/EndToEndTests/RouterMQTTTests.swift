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

/// `tagrouter run` publishing to a real mosquitto on 127.0.0.1 (started by the test with a password file and,
/// for mqtts, a CA and server certificate made with openssl), through real pcscd + vpcd + virtual tags.
@Suite(.needsRoot, .serialized) struct RouterMQTTTests {
    static let tagTopic = "tagrouter/front-door/virtual_pcd_00_00/tag"
    /// Shorter reconnection backoff for the tests (the default is 1 s doubling to 60 s).
    static let fastReconnect = ["TAGROUTER_MQTT_RECONNECT_MIN_MS": "200", "TAGROUTER_MQTT_RECONNECT_MAX_MS": "1000"]

    /// Rules with the broker block and `rules` after it.
    static func rules(
        port: UInt16, scheme: String = "mqtt", host: String = "127.0.0.1", extra: String = "", rules: String
    ) -> String {
        """
        version: 1
        mqtt:
          url: "\(scheme)://\(host):\(port)"
          username: "${MQTT_USER}"
          password: "${MQTT_PASSWORD}"
          clientId: front-door
          homeAssistant: true
        \(extra)
        rules:
        \(rules)
        """
    }

    static let everyTag = """
          - name: every-tag
            match: { any: true }
            mqtt: {}

        """

    static func environment(password: String = MosquittoBroker.password) -> [String: String] {
        fastReconnect.merging(["MQTT_USER": MosquittoBroker.username, "MQTT_PASSWORD": password]) { _, new in new }
    }

    /// Presents a tag, waits for the router's `mqtt queued`, removes it.
    static func tap(
        _ harness: RouterHarness, uri: String, slot: Int = 0, uid: [UInt8], router: RouterProcess? = nil
    ) async throws {
        let router = router ?? harness.router
        let before = router.lines(containing: "mqtt queued").count
        let tag = try harness.present(uri: uri, slot: slot, uid: uid)
        try await router.waitForLog("mqtt queued", count: before + 1, timeout: .seconds(15))
        try await harness.remove(tag, slot: slot, router: router)
    }

    static func json(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    /// Issue 30: each reader also gets an `event` entity fed by its tag topic and a "Tag present" sensor; a
    /// removal published by `on: removed` carries its event, presentation id and time on the reader.
    @Test func removalsReachHomeAssistantsEventEntityAndThePresenceSensor() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker)
        let rules = Self.rules(
            port: broker.port,
            rules: """
                  - name: shelf
                    match: { any: true }
                    mqtt: {}
                    on:
                      removed: { after: 300ms, mqtt: {} }

                """)
        try await RouterHarness.with(rules: rules, environment: Self.environment()) { harness in
            try await harness.router.waitForLog("mqtt connected")
            let event = try await subscriber.waitFor(2) { $0.topic.hasPrefix("homeassistant/event/") }
            let eventConfig = Self.json(try #require(event.first { $0.topic.contains("00_00") }))
            #expect(
                Set(event.map(\.topic)) == [
                    "homeassistant/event/front-door/virtual_pcd_00_00/config",
                    "homeassistant/event/front-door/virtual_pcd_00_01/config",
                ])
            #expect(eventConfig["state_topic"] as? String == Self.tagTopic)
            #expect(eventConfig["event_types"] as? [String] == ["tap", "removed", "held", "returned", "denied"])
            #expect(eventConfig["unique_id"] as? String == "tagrouter_front-door_virtual_pcd_00_00_event")
            // Available while the status document says `online` (docs/fleet.md, "The status document").
            #expect(
                eventConfig["availability"] as? [[String: String]] == [
                    [
                        "topic": "tagrouter/front-door/status", "value_template": "{{ value_json.state }}",
                        "payload_available": "online", "payload_not_available": "offline",
                    ]
                ])
            // The records stay out of the event's attributes (Home Assistant's recorder keeps every attribute).
            #expect(
                eventConfig["value_template"] as? String
                    == "{{ dict(value_json.items() | rejectattr('0', 'eq', 'records') | list, "
                    + "event_type=value_json.get('event', 'tap')) | to_json }}")
            #expect((eventConfig["origin"] as? [String: String])?["name"] == "TagRouter")
            let sensor = try await subscriber.waitFor(2) { $0.topic.hasPrefix("homeassistant/binary_sensor/") }
            let sensorConfig = Self.json(try #require(sensor.first { $0.topic.contains("00_00") }))
            #expect(sensorConfig["state_topic"] as? String == "tagrouter/front-door/virtual_pcd_00_00/present")
            #expect(sensorConfig["payload_on"] as? String == "ON" && sensorConfig["payload_off"] as? String == "OFF")

            let tag = try harness.present(uri: "https://example.com/figure")
            try await harness.router.waitForLog("mqtt queued")
            try await harness.remove(tag, slot: 0)
            let published = try await subscriber.waitFor(2) { $0.topic == Self.tagTopic }
            let documents = published.map(Self.json)
            #expect(documents.map { $0["event"] as? String } == ["tap", "removed"])
            #expect(documents[0]["presentation_id"] as? String == documents[1]["presentation_id"] as? String)
            #expect(documents[1]["ha_tag_id"] as? String == "04-A1-B2-C3-D4-E5-80")
            #expect(((documents[1]["presented_for_ms"] as? Int) ?? 0) > 0)
            let presence = try await subscriber.waitFor(3) {
                $0.topic == "tagrouter/front-door/virtual_pcd_00_00/present"
            }
            // Announced empty when the reader appears (a tag taken away while the router was down is not left
            // present in Home Assistant), then the tap and its removal.
            #expect(presence.map(\.text) == ["OFF", "ON", "OFF"])
            // Retained: a subscriber that comes later learns the reader is empty.
            let late = try await MQTTSubscriber(broker: broker, filter: "tagrouter/front-door/+/present")
            let retained = try await late.waitFor(1) { $0.topic.hasSuffix("00_00/present") }
            #expect(retained.map(\.text) == ["OFF"])
            try await harness.router.waitForLog(" info removed ")
        }
        await broker.stop()
    }

    @Test func aTapIsPublishedWithTheEventDocumentAndReadersAreDiscoveredByHomeAssistant() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker)
        let port = try await HTTPTestServer.freePort()
        let rules = Self.rules(
            port: broker.port,
            rules: Self.everyTag.replacingOccurrences(of: "mqtt: {}", with: "mqtt: {}\n    continue: true") + """
                  - name: door-open
                    match: { domains: [home.example.com] }
                    mqtt:
                      topic: "site/doors/{reader}/{query.door}"
                      payload: '{"uid": "{uid}", "uri": "{uri}"}'
                      qos: 0

                """)
        try await RouterHarness.with(
            rules: rules, arguments: ["--metrics", "127.0.0.1:\(port)"], environment: Self.environment()
        ) { harness in
            try await harness.router.waitForLog("mqtt connected")
            // Discovery for both readers, retained, and `online`.
            let discovery = try await subscriber.waitFor(2) { $0.topic.hasPrefix("homeassistant/tag/") }
            #expect(
                Set(discovery.map(\.topic)) == [
                    "homeassistant/tag/front-door/virtual_pcd_00_00/config",
                    "homeassistant/tag/front-door/virtual_pcd_00_01/config",
                ])
            let first = try #require(discovery.first { $0.topic.contains("00_00") })
            let config = Self.json(first)
            #expect(config["topic"] as? String == Self.tagTopic)
            #expect(
                config["value_template"] as? String
                    == "{% if value_json.get('event', 'tap') in ('tap', 'returned') %}{{ value_json.ha_tag_id }}{% endif %}"
            )
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["tagrouter_front-door_virtual_pcd_00_00"])
            #expect(device["name"] as? String == "Virtual PCD 00 00")
            #expect(device["model"] as? String == "Virtual PCD 00 00")
            #expect(device["manufacturer"] as? String == "TagRouter")
            #expect((device["sw_version"] as? String)?.isEmpty == false)
            let online = try await subscriber.waitFor(1) { $0.topic == "tagrouter/front-door/status" }
            let statusDocument = Self.json(try #require(online.first))
            #expect(statusDocument["state"] as? String == "online")
            #expect((statusDocument["version"] as? String)?.isEmpty == false)
            #expect(statusDocument["bundle"] is NSNull && statusDocument["refusedBundle"] is NSNull)
            #expect((statusDocument["clock"] as? [String: Any])?["source"] as? String == "adjtimex")

            let tag = try harness.present(uri: "https://home.example.com/open?door=front/+#x")
            try await harness.router.waitForLog("mqtt published")
            await tag.remove()
            let published = try await subscriber.waitFor(1) { $0.topic == Self.tagTopic }
            let document = Self.json(published[0])
            #expect(document["ha_tag_id"] as? String == "04-A1-B2-C3-D4-E5-80")
            #expect(document["rule"] as? String == "every-tag")
            #expect(document["reader"] as? String == "Virtual PCD 00 00")
            #expect(document["uri"] as? String == "https://home.example.com/open?door=front/+#x")
            #expect((document["id"] as? String)?.count == 36)
            #expect(published[0].qos == 1)
            let door = try await subscriber.waitFor(1) { $0.topic.hasPrefix("site/doors/") }
            // The query value `front/+` (the fragment is not part of it) adds no topic level and no wildcard.
            #expect(door.map(\.topic) == ["site/doors/Virtual PCD 00 00/front__"])
            #expect(
                door.map(\.text) == [
                    #"{"uid": "04A1B2C3D4E580", "uri": "https://home.example.com/open?door=front/+#x"}"#
                ])
            let tapLine = try #require(harness.router.lines(containing: " info tap ").last)
            #expect(tapLine.contains("mqtt queued"), "\(tapLine)")
            #expect(tapLine.contains("mqtt published"), "\(tapLine)")
            #expect(!harness.router.log.contains(MosquittoBroker.password))

            // Home Assistant announcing itself gets the discovery again.
            let (announcerEvents, announced) = AsyncStream.makeStream(of: MQTTEvent.self)
            let announcer = try MQTTConnection(
                options: MQTTOptions(
                    host: "127.0.0.1", port: Int(broker.port), clientID: "home-assistant",
                    username: MosquittoBroker.username, password: MosquittoBroker.password),
                onEvent: { announced.yield($0) })
            announcer.start()
            for await event in announcerEvents {
                if case .connected = event { break }
            }
            try announcer.publish(MQTTMessage(topic: "homeassistant/status", text: "online", qos: 1))
            try await subscriber.waitFor(4) { $0.topic.hasPrefix("homeassistant/tag/") }
            announcer.stop()

            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            let metrics = String(decoding: data, as: UTF8.self)
            #expect(metrics.contains("tagrouter_mqtt_connected 1"), "\(metrics)")
            #expect(metrics.contains(#"tagrouter_actions_total{kind="mqtt",outcome="queued"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"tagrouter_actions_total{kind="mqtt",outcome="published"} 1"#), "\(metrics)")

            // A clean stop publishes `offline` (retained) before disconnecting.
            let (status, _) = try await harness.router.terminate()
            #expect(status == 0)
            // The document is published again on every change (readers added), each time `online`.
            try await subscriber.waitFor(1) {
                $0.topic == "tagrouter/front-door/status" && Self.json($0)["state"] as? String == "offline"
            }
            let statuses = subscriber.messages(on: "tagrouter/front-door/status").map(Self.json)
            #expect(statuses.count >= 2 && statuses.last?["state"] as? String == "offline")
            #expect(statuses.dropLast().allSatisfy { $0["state"] as? String == "online" })
            #expect(statuses.last?["version"] != nil, "a clean stop publishes the whole document")
            let history = try await TagRouterBinary.run(
                ["history", "--state-dir", harness.directory + "/state", "--json"],
                environment: harness.pcscd.environment)
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any])
            let deliveries = try #require(report["deliveries"] as? [[String: Any]])
            #expect(deliveries.count == 1)
            #expect(deliveries.first?["kind"] as? String == "mqtt")
            #expect(deliveries.first?["state"] as? String == "delivered")
            #expect(deliveries.first?["url"] as? String == Self.tagTopic)
        }
    }

    @Test func tlsWithTheBrokersCAPublishes() async throws {
        let broker = try await MosquittoBroker.start(tls: true)
        let subscriber = try await MQTTSubscriber(broker: broker)
        let rules = Self.rules(
            port: try #require(broker.tlsPort), scheme: "mqtts", host: "localhost",
            extra: "  tls: { ca: \(broker.caFile) }", rules: Self.everyTag)
        try await RouterHarness.with(rules: rules, environment: Self.environment()) { harness in
            try await harness.router.waitForLog("mqtt connected")
            try await Self.tap(harness, uri: "https://example.com/tls", uid: faultUID(70, 1))
            let messages = try await subscriber.waitFor(1) { $0.topic == Self.tagTopic }
            #expect(Self.json(messages[0])["uri"] as? String == "https://example.com/tls")
            let doctor = try await TagRouterBinary.run(
                ["doctor", "--rules", harness.rulesDirectory, "--state-dir", harness.directory + "/doctor-state"],
                environment: harness.pcscd.environment.merging(Self.environment()) { _, new in new })
            #expect(
                doctor.standardOutput.contains(
                    "ok       mqtt: broker localhost:\(broker.tlsPort!) (TLS) accepted client front-door-doctor as tagrouter"
                ),
                "\(doctor.standardOutput)")
        }
    }

    @Test func theLastWillIsPublishedAfterSIGKILL() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "tagrouter/front-door/status")
        try await RouterHarness.with(
            rules: Self.rules(port: broker.port, rules: Self.everyTag), environment: Self.environment()
        ) { harness in
            try await subscriber.waitFor(1) { Self.json($0)["state"] as? String == "online" }
            harness.router.kill()
            try await subscriber.waitFor(1) { Self.json($0)["state"] as? String == "offline" }
            let statuses = subscriber.messages
            #expect(statuses.dropLast().allSatisfy { Self.json($0)["state"] as? String == "online" })
            #expect(statuses.last?.text == #"{"state":"offline"}"#, "the last will is the state alone")
            #expect(statuses.last?.qos == 1)
        }
    }

    @Test func aWrongPasswordIsLoggedOnceWithTheFixAndTapsStayQueued() async throws {
        let broker = try await MosquittoBroker.start()
        try await RouterHarness.with(
            rules: Self.rules(port: broker.port, rules: Self.everyTag), environment: Self.environment(password: "nope")
        ) { harness in
            try await harness.router.waitForLog("mqtt broker refused the connection")
            try await Self.tap(harness, uri: "https://example.com/refused", uid: faultUID(71, 1))
            // Several attempts (every 200 ms to 1 s), one line: wait until the broker has refused four.
            let deadline = ContinuousClock.now + .seconds(20)
            while broker.log.components(separatedBy: "not authorised").count <= 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let refusals = harness.router.lines(containing: "mqtt broker refused the connection")
            #expect(refusals.count == 1)
            #expect(refusals.first?.contains("not authorised") == true, "\(refusals)")
            #expect(refusals.first?.contains("check username and password") == true, "\(refusals)")
            #expect(harness.router.isRunning)
            #expect(broker.log.components(separatedBy: "not authorised").count > 3, "\(broker.log)")
            let doctor = try await TagRouterBinary.run(
                [
                    "doctor", "--rules", harness.rulesDirectory, "--state-dir", harness.directory + "/doctor-state",
                    "--json",
                ],
                environment: harness.pcscd.environment.merging(Self.environment(password: "nope")) { _, new in new })
            let checks = try #require(
                try JSONSerialization.jsonObject(with: Data(doctor.standardOutput.utf8)) as? [[String: String]])
            let mqtt = try #require(checks.first { $0["name"] == "mqtt" })
            #expect(mqtt["status"] == "problem")
            #expect(mqtt["detail"]?.contains("refused the connection: Connection Refused: not authorised") == true)
            #expect(mqtt["fix"]?.contains("username and password") == true)
            // The tap's publication waits in the outbox, not lost.
            let history = try await TagRouterBinary.run(
                ["history", "--state-dir", harness.directory + "/state", "--json"],
                environment: harness.pcscd.environment)
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any])
            let deliveries = try #require(report["deliveries"] as? [[String: Any]])
            #expect(deliveries.map { $0["state"] as? String } == ["pending"])
            #expect(deliveries.map { $0["kind"] as? String } == ["mqtt"])
        }
    }
}
