import Foundation
import HTTPTestSupport
import Logging
import MQTTClient
import MQTTTestSupport
import StateStore
import TestSupport
import Testing

/// The Deliveries page's "retry now" on an MQTT publication, through the built router and a real mosquitto
/// (docs/console.md, "Deliveries"): a publication kept as failed, its next attempt a day away, is published within
/// seconds of the button, the console waking the MQTT publisher as it wakes the webhook worker. With no pcscd the
/// router waits for one and runs the console and the publisher meanwhile.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ConsoleMQTTRetryTests {
    @Test func retryNowPublishesAFailedPublicationWithinSeconds() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "doors/#")
        let directory = NSTemporaryDirectory() + "console-mqtt-retry-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/rules", withIntermediateDirectories: true)
        try """
        version: 1
        mqtt:
          url: "mqtt://127.0.0.1:\(broker.port)"
          username: \(MosquittoBroker.username)
          password: \(MosquittoBroker.password)
          clientId: console-retry
        rules: []

        """.write(toFile: directory + "/rules/r.yaml", atomically: true, encoding: .utf8)
        // Failed before the router starts, its next attempt a day away.
        var logger = Logger(label: "console-mqtt-retry")
        logger.logLevel = .critical
        let outbox = try StateDatabase(directory: directory + "/state", logger: logger)
        var publication = Delivery(
            kind: .mqtt, eventID: "e-retry", rule: "r", target: "doors/retried", method: .mqtt, createdAt: Date(),
            retryFor: .seconds(60))
        publication.body = Array("again".utf8)
        publication.qos = 1
        let failed = try outbox.insert(publication)
        let tomorrow = Timestamp.milliseconds(Date()) + 86_400_000
        try outbox.record([
            DeliveryOutcome(
                id: failed.id, state: .failed, error: "not acknowledged by the broker within retryFor",
                nextAttemptAt: tomorrow, finishedAt: tomorrow)
        ])
        // A publication due now, kept after the failed one: the publisher hands rows over in order on one
        // connection, so once it has arrived the failed row was passed over, not merely not reached yet.
        var marker = Delivery(
            kind: .mqtt, eventID: "e-marker", rule: "r", target: "doors/marker", method: .mqtt, createdAt: Date(),
            retryFor: .seconds(60))
        marker.body = Array("marker".utf8)
        marker.qos = 1
        _ = try outbox.insert(marker)

        let port = try await HTTPTestServer.freePort()
        let environment = ["PATH": "/usr/bin:/bin", "PCSCLITE_CSOCK_NAME": directory + "/no-pcscd"]
        let router = try RouterProcess(
            arguments: [
                "--rules", directory + "/rules", "--state-dir", directory + "/state", "--console", "127.0.0.1:\(port)",
            ], environment: environment, directory: directory)
        try await router.waitForLog("console.listening")
        try await router.waitForLog("mqtt connected")
        try await subscriber.waitFor(1, timeout: .seconds(30)) { $0.topic == "doors/marker" }
        #expect(subscriber.messages(on: "doors/retried").isEmpty)

        // Signed in as the link's page does, then the Deliveries page's form.
        let url = "http://127.0.0.1:\(port)"
        let jar = directory + "/jar"
        func curl(_ arguments: [String]) async throws -> String {
            try await TagRouterBinary.run(
                program: "/usr/bin/curl", ["-s", "-b", jar, "-c", jar] + arguments, environment: environment,
                timeout: .seconds(20)
            ).standardOutput
        }
        func hidden(_ name: String, in page: String) throws -> String {
            try #require(
                page.components(separatedBy: #"name="\#(name)" value=""#).dropFirst().first.map {
                    String($0.prefix { $0 != "\"" })
                })
        }
        let login = try await TagRouterBinary.run(
            ["console-login", "--state-dir", directory + "/state"], environment: environment)
        let link = login.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let token = try #require(link.split(separator: "=").last)
        let field = try hidden("login", in: try await curl([link]))
        _ = try await curl(["-d", "login=\(field)&token=\(token)", url + "/login/link"])
        let page = try await curl([url + "/deliveries"])
        #expect(page.contains("doors/retried"), "\(page)")
        let csrf = try hidden("csrf", in: page)
        let answer = try await curl([
            "-o", "/dev/null", "-w", "%{http_code}", "-d", "csrf=\(csrf)&id=\(failed.id)", url + "/deliveries/retry",
        ])
        #expect(answer == "303")
        try await subscriber.waitFor(1, timeout: .seconds(30)) { $0.topic == "doors/retried" }
        try await waitUntil("the publication delivered") {
            try outbox.deliveries(eventID: "e-retry").first?.state == .delivered
        }
        let (status, _) = try await router.terminate()
        #expect(status == 0)
    }
}
