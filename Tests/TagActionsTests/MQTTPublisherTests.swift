import Foundation
import Logging
import MQTTClient
import MQTTTestSupport
import ServiceLifecycle
import StateStore
import TagActions
import TagRules
import TestSupport
import Testing

/// ``MQTTPublisher`` with the state database against a real mosquitto: PUBACK marks rows delivered, QoS 0 is
/// published only while connected, `retryFor` ends in a failed row for `history --failed`, a clean stop
/// publishes `offline`.
@Suite("MQTT publisher")
struct MQTTPublisherTests {
    static func settings(port: UInt16, password: String = MosquittoBroker.password) throws -> MQTTSettings {
        let text = """
            version: 1
            mqtt:
              url: "mqtt://127.0.0.1:\(port)"
              username: \(MosquittoBroker.username)
              password: \(password)
              clientId: publisher-test
            rules: []

            """
        return try #require(try RuleSet.load(files: [("f.yaml", text)], environment: [:]).get().mqtt)
    }

    /// Runs a publisher in a service group for `body`, then stops it gracefully.
    static func withPublisher(
        settings: MQTTSettings, directory: String, _ body: (MQTTPublisher) async throws -> Void
    ) async throws {
        let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
        let publisher = MQTTPublisher(
            settings: settings, database: outbox,
            configuration: .init(
                version: "test", minimumReconnectDelay: .milliseconds(100), maximumReconnectDelay: .milliseconds(500)),
            logger: TestEnvironment.logger)
        let group = ServiceGroup(configuration: .init(services: [publisher], logger: TestEnvironment.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                try await body(publisher)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a QoS 1 publication is stored, published, and marked delivered on its PUBACK; QoS 0 is published")
    func acknowledgedPublicationsAreDelivered() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "doors/#")
        try await TestEnvironment.withTemporaryDirectory { directory in
            try await Self.withPublisher(settings: try Self.settings(port: broker.port), directory: directory) {
                publisher in
                try await waitUntil("the publisher connected") { publisher.isConnected }
                let eventID = EventID.make()
                let result = try publisher.enqueue(
                    Delivery.mqtt(topic: "doors/front", payload: Array("one".utf8), eventID: eventID, rule: "r"))
                guard case .queued(let id) = result else {
                    Issue.record("not queued: \(result)")
                    return
                }
                #expect(id > 0)
                try await waitUntil("the publication delivered") {
                    try publisher.database.deliveries(eventID: eventID).first?.state == .delivered
                }
                let record = try #require(try publisher.database.deliveries(eventID: eventID).first)
                #expect(record.kind == .mqtt)
                #expect(record.method == .mqtt)
                #expect(record.target == "doors/front")
                #expect(record.attempts == 1)
                let fireAndForget = try publisher.enqueue(
                    Delivery.mqtt(topic: "doors/back", payload: Array("two".utf8), qos: 0, eventID: "e0", rule: "r"))
                #expect(fireAndForget == .published)
                #expect(try publisher.database.deliveries(eventID: "e0").isEmpty)
                let messages = try await subscriber.waitFor(2)
                #expect(messages.map(\.topic) == ["doors/front", "doors/back"])
                #expect(messages.map(\.qos) == [1, 0])
                #expect(try publisher.database.pendingCounts() == [.webhook: 0, .mqtt: 0])
            }
        }
    }

    @Test("a clean stop publishes offline, retained, after online")
    func cleanStopPublishesOffline() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "tagrouter/publisher-test/status")
        try await TestEnvironment.withTemporaryDirectory { directory in
            try await Self.withPublisher(settings: try Self.settings(port: broker.port), directory: directory) {
                publisher in
                try await waitUntil("the publisher connected") { publisher.isConnected }
                try await subscriber.waitFor(1)
            }
        }
        let statuses = try await subscriber.waitFor(2)
        #expect(statuses.map(\.text) == [#"{"state":"online"}"#, #"{"state":"offline"}"#])
        #expect(statuses.allSatisfy(\.retain) == false, "live deliveries are not flagged retained")
    }

    @Test("presence follows the router's reports: each change once, OFF for a reader that went with a tag on it")
    func presenceFollowsTheReports() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "tagrouter/publisher-test/+/present")
        var settings = try Self.settings(port: broker.port)
        settings.discoveryPrefix = "homeassistant"
        try await TestEnvironment.withTemporaryDirectory { directory in
            try await Self.withPublisher(settings: settings, directory: directory) { publisher in
                try await waitUntil("the publisher connected") { publisher.isConnected }
                publisher.readersChanged(["Door": false])
                publisher.readersChanged(["Door": true])
                // Door unchanged: only Desk is published.
                publisher.readersChanged(["Door": true, "Desk": false])
                // Door gone with its tag: OFF.
                publisher.readersChanged(["Desk": false])
                let messages = try await subscriber.waitFor(4)
                let door = settings.presenceTopic(reader: "Door")
                let desk = settings.presenceTopic(reader: "Desk")
                #expect(
                    messages.map { "\($0.topic) \($0.text)" } == [
                        "\(door) OFF", "\(door) ON", "\(desk) OFF", "\(door) OFF",
                    ])
            }
        }
    }

    @Test("with the broker down, QoS 0 fails, QoS 1 waits and is kept as failed once retryFor has passed")
    func retryForEndsInAFailedRow() async throws {
        let broker = try await MosquittoBroker.start()
        await broker.stop()
        try await TestEnvironment.withTemporaryDirectory { directory in
            try await Self.withPublisher(settings: try Self.settings(port: broker.port), directory: directory) {
                publisher in
                let lost = try publisher.enqueue(
                    Delivery.mqtt(topic: "doors/x", payload: [], qos: 0, eventID: "e0", rule: "r"))
                #expect(
                    lost
                        == .failed(
                            reason:
                                "not connected to the MQTT broker mqtt://127.0.0.1:\(broker.port) (QoS 0 is not stored)"
                        ))
                let eventID = EventID.make()
                _ = try publisher.enqueue(
                    Delivery.mqtt(
                        topic: "doors/x", payload: Array("late".utf8), retryFor: .seconds(1), eventID: eventID,
                        rule: "r"))
                #expect(try publisher.database.pendingCounts()[.mqtt] == 1)
                try await waitUntil("the publication kept as failed") {
                    try publisher.database.deliveries(eventID: eventID).first?.state == .failed
                }
                let failed = try publisher.database.history(failedOnly: true).deliveries
                #expect(failed.map(\.eventID) == [eventID])
                #expect(failed.first?.kind == .mqtt)
                #expect(failed.first?.lastError == "not acknowledged by the broker within retryFor")
            }
        }
    }

    /// Enqueues a publication on `topic` and waits until the subscriber has it: whatever the publisher handed over
    /// before it has arrived by then.
    static func publishMarker(_ topic: String, _ publisher: MQTTPublisher, _ subscriber: MQTTSubscriber) async throws {
        _ = try publisher.enqueue(
            Delivery.mqtt(topic: topic, payload: Array("marker".utf8), eventID: EventID.make(), rule: "r"))
        try await subscriber.waitFor(1) { $0.topic == topic }
    }

    @Test("retry now: a failed publication older than those published since is published at once by retryPending")
    func retryPendingPublishesAFailedPublicationAgain() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "doors/#")
        try await TestEnvironment.withTemporaryDirectory { directory in
            // Failed before the publisher starts, its next attempt a day away (what the console's Deliveries page
            // shows for a publication whose retryFor passed).
            let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let failedEvent = EventID.make()
            let failed = try outbox.insert(
                Delivery.mqtt(topic: "doors/retried", payload: Array("again".utf8), eventID: failedEvent, rule: "r"))
            let tomorrow = Timestamp.milliseconds(Date()) + 86_400_000
            try outbox.record([
                DeliveryOutcome(
                    id: failed.id, state: .failed, error: "not acknowledged by the broker within retryFor",
                    nextAttemptAt: tomorrow, finishedAt: tomorrow)
            ])
            try await Self.withPublisher(settings: try Self.settings(port: broker.port), directory: directory) {
                publisher in
                try await waitUntil("the publisher connected") { publisher.isConnected }
                // A later publication moves the publisher past the failed row.
                let laterEvent = EventID.make()
                _ = try publisher.enqueue(
                    Delivery.mqtt(topic: "doors/later", payload: Array("later".utf8), eventID: laterEvent, rule: "r"))
                try await subscriber.waitFor(1) { $0.topic == "doors/later" }
                try await waitUntil("the later publication delivered") {
                    try publisher.database.deliveries(eventID: laterEvent).first?.state == .delivered
                }
                // Made pending again, as the console's "retry now" does: the publisher has gone past it.
                #expect(try publisher.database.retryDeliveryNow(id: failed.id))
                // A marker enqueued after the reset is handed over in a pass that does not reach back to it: once
                // the marker has arrived (one connection, in order), the reset row was not published on its own.
                try await Self.publishMarker("doors/marker-1", publisher, subscriber)
                #expect(subscriber.messages(on: "doors/retried").isEmpty)
                publisher.retryPending()
                try await subscriber.waitFor(1, timeout: .seconds(30)) { $0.topic == "doors/retried" }
                try await waitUntil("the retried publication delivered") {
                    try publisher.database.deliveries(eventID: failedEvent).first?.state == .delivered
                }
                // Nothing handed over before is published twice.
                publisher.retryPending()
                try await Self.publishMarker("doors/marker-2", publisher, subscriber)
                #expect(subscriber.messages(on: "doors/later").count == 1)
                #expect(subscriber.messages(on: "doors/retried").count == 1)
            }
        }
    }

    @Test(
        "a topic a broker would refuse is an error at enqueue",
        arguments: [
            ("a/+/b", "mqtt topic 'a/+/b' contains a wildcard ('+' or '#')"),
            ("/a", "mqtt topic '/a' starts with an empty level ('/')"),
            ("", "mqtt topic '' is empty"),
        ])
    func invalidTopics(topic: String, message: String) throws {
        let publication = Delivery.mqtt(topic: topic, payload: [], eventID: "e", rule: "r")
        #expect(throws: ActionError(.invalidRequest, message)) { try publication.validate() }
    }
}
