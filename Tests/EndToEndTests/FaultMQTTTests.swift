import Foundation
import MQTTClient
import MQTTTestSupport
import TestSupport
import Testing
import VirtualTag

/// Fault suite, MQTT (issue 14): a broker that is down while taps happen and the router is killed, and a broker
/// restarted twenty times under taps. Every QoS 1 publication must arrive; the router logs one line per
/// connection state change, not one per attempt.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct FaultMQTTTests {

    /// The event documents' URIs that arrived on the readers' tag topics, and how many messages that took.
    static func arrived(_ subscriber: MQTTSubscriber) -> (uris: Set<String>, ids: Set<String>, messages: Int) {
        let messages = subscriber.messages.filter { $0.topic.hasSuffix("/tag") }
        let documents = messages.map(RouterMQTTTests.json)
        return (
            Set(documents.compactMap { $0["uri"] as? String }), Set(documents.compactMap { $0["id"] as? String }),
            messages.count
        )
    }

    /// Waits until every URI has arrived.
    static func waitForAll(_ uris: [String], at subscriber: MQTTSubscriber, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !Set(uris).isSubset(of: arrived(subscriber).uris), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func everyQoS1PublicationArrivesAfterTheBrokerWasDownAndTheRouterWasKilled() async throws {
        let broker = try await MosquittoBroker.start()
        // The subscriber's session (clean session off) outlives the broker's restart, as a central consumer's
        // should.
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "tagrouter/front-door/#")
        await broker.stop()
        let rules = RouterMQTTTests.rules(port: broker.port, rules: RouterMQTTTests.everyTag)
        try await RouterHarness.with(rules: rules, environment: RouterMQTTTests.environment()) { harness in
            try await harness.router.waitForLog("mqtt broker unreachable")
            var uris: [String] = []
            for number in 0..<5 {
                let uri = "https://example.com/down/\(number)"
                try await RouterMQTTTests.tap(harness, uri: uri, slot: number % 2, uid: faultUID(72, number))
                uris.append(uri)
            }
            harness.router.kill()
            let second = try harness.startAnotherRouter(logName: "router-after-kill.log")
            try await second.waitForLog(RouterHarness.readerAdded, count: 2)
            for number in 5..<10 {
                let uri = "https://example.com/down/\(number)"
                try await RouterMQTTTests.tap(
                    harness, uri: uri, slot: number % 2, uid: faultUID(72, number), router: second)
                uris.append(uri)
            }
            // The broker stayed down through many attempts: one line.
            #expect(harness.router.lines(containing: "mqtt broker unreachable").count == 1)
            #expect(second.lines(containing: "mqtt broker unreachable").count == 1)
            try await broker.resume()
            try await second.waitForLog("mqtt connected")
            try await Self.waitForAll(uris, at: subscriber, timeout: .seconds(60))
            let arrived = Self.arrived(subscriber)
            #expect(arrived.uris == Set(uris), "missing: \(Set(uris).subtracting(arrived.uris).sorted())")
            #expect(arrived.ids.count == 10)
            print(
                "fault suite, mqtt: 10 QoS 1 events after a broker outage and a router SIGKILL, \(arrived.messages) messages"
            )
            // Every publication is marked delivered in the one state database.
            let deadline = ContinuousClock.now + .seconds(10)
            var delivered = 0
            while delivered < 10, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                let history = try await TagRouterBinary.run(
                    ["history", "--state-dir", harness.directory + "/state", "--json"],
                    environment: harness.pcscd.environment)
                let report = try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any]
                let deliveries = report?["deliveries"] as? [[String: Any]] ?? []
                delivered = deliveries.count {
                    $0["state"] as? String == "delivered" && $0["kind"] as? String == "mqtt"
                }
            }
            #expect(delivered == 10)
            try await second.terminate()
        }
    }

    @Test func everyPublicationArrivesThroughTwentyBrokerRestartsUnderTaps() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "tagrouter/front-door/#")
        let rules = RouterMQTTTests.rules(port: broker.port, rules: RouterMQTTTests.everyTag)
        try await RouterHarness.with(rules: rules, environment: RouterMQTTTests.environment()) { harness in
            try await harness.router.waitForLog("mqtt connected")
            var uris: [String] = []
            for restart in 0..<20 {
                let uri = "https://example.com/restart/\(restart)/up"
                try await RouterMQTTTests.tap(harness, uri: uri, slot: restart % 2, uid: faultUID(73, restart))
                uris.append(uri)
                await broker.stop()
                if restart % 2 == 0 {
                    let down = "https://example.com/restart/\(restart)/down"
                    try await RouterMQTTTests.tap(
                        harness, uri: down, slot: (restart + 1) % 2, uid: faultUID(74, restart))
                    uris.append(down)
                }
                try await broker.resume()
            }
            try await Self.waitForAll(uris, at: subscriber, timeout: .seconds(60))
            let arrived = Self.arrived(subscriber)
            #expect(arrived.uris == Set(uris), "missing: \(Set(uris).subtracting(arrived.uris).sorted())")
            #expect(arrived.ids.count == uris.count)
            #expect(harness.router.isRunning)
            try await harness.router.waitForLog("mqtt connected", count: 21)
            let connected = harness.router.lines(containing: "mqtt connected").count
            let lost = harness.router.lines(containing: "mqtt connection lost").count
            let unreachable = harness.router.lines(containing: "mqtt broker unreachable").count
            #expect(connected == 21)
            #expect(lost == 20)
            #expect(unreachable <= 20)
            print(
                "fault suite, mqtt: \(uris.count) taps through 20 broker restarts, \(arrived.messages) messages; "
                    + "log lines: \(connected) connected, \(lost) lost, \(unreachable) unreachable")
        }
    }
}
