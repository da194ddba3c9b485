import Foundation
import HTTPTestSupport
import MQTTClient
import MQTTTestSupport
import NIOSSL
import Synchronization
import TestSupport
import Testing

/// ``MQTTConnection`` against a real mosquitto started by the test: publication, CONNACK refusals, TLS, and a
/// broker that is down at start.
@Suite struct MQTTConnectionTests {
    /// Records a connection's events.
    final class Events: Sendable {
        let list = Mutex<[MQTTEvent]>([])

        func record(_ event: MQTTEvent) { list.withLock { $0.append(event) } }

        func waitFor(_ predicate: @Sendable (MQTTEvent) -> Bool, timeout: Duration = .seconds(10)) async throws
            -> MQTTEvent
        {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let event = list.withLock({ $0.first(where: predicate) }) { return event }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw HarnessError("no matching event within \(timeout); events: \(list.withLock { $0 })")
        }
    }

    static func options(
        _ broker: MosquittoBroker, password: String = MosquittoBroker.password, tls: MQTTOptions.TLS? = nil
    ) -> MQTTOptions {
        MQTTOptions(
            host: tls == nil ? "127.0.0.1" : "localhost", port: Int(tls == nil ? broker.port : broker.tlsPort!),
            clientID: "connection-test-\(UInt32.random(in: 0...UInt32.max))", username: MosquittoBroker.username,
            password: password, tls: tls, minimumReconnectDelay: .milliseconds(200),
            maximumReconnectDelay: .seconds(1))
    }

    @Test func aQoS1PublicationArrivesAndIsAcknowledged() async throws {
        let broker = try await MosquittoBroker.start()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "doors/#")
        let events = Events()
        let connection = try MQTTConnection(options: Self.options(broker), onEvent: events.record)
        connection.start()
        _ = try await events.waitFor { $0 == .connected }
        let id = try connection.publish(MQTTMessage(topic: "doors/front", text: #"{"uid":"04A1"}"#, qos: 1))
        _ = try await events.waitFor { $0 == .acknowledged(messageID: id) }
        let received = try await subscriber.waitFor(1)
        #expect(received.map(\.topic) == ["doors/front"])
        #expect(received.map(\.text) == [#"{"uid":"04A1"}"#])
        connection.stop()
        _ = try await events.waitFor { $0 == .stopped }
    }

    @Test func aWrongPasswordIsRefusedWithTheBrokersReason() async throws {
        let broker = try await MosquittoBroker.start()
        let events = Events()
        let connection = try MQTTConnection(options: Self.options(broker, password: "wrong"), onEvent: events.record)
        connection.start()
        let refusal = try await events.waitFor {
            if case .refused = $0 { true } else { false }
        }
        #expect(refusal == .refused(code: 5, reason: "Connection Refused: not authorised."))
        #expect(!connection.isConnected)
        connection.stop()
        _ = try await events.waitFor { $0 == .stopped }
    }

    @Test func tlsConnectsWithTheBrokersCAAndFailsWithTheSystemTrustStore() async throws {
        let broker = try await MosquittoBroker.start(tls: true)
        let good = Events()
        let trusted = try MQTTConnection(
            options: Self.options(broker, tls: .init(caFile: broker.caFile)), onEvent: good.record)
        trusted.start()
        _ = try await good.waitFor { $0 == .connected }
        trusted.stop()
        let bad = Events()
        let untrusted = try MQTTConnection(options: Self.options(broker, tls: .init()), onEvent: bad.record)
        untrusted.start()
        let failure = try await bad.waitFor {
            if case .connectFailed = $0 { true } else { false }
        }
        guard case .connectFailed(let reason) = failure else { return }
        #expect(reason.contains("certificate verify failed"), "\(reason)")
        untrusted.stop()
    }

    @Test("a broker that speaks nothing newer than TLS 1.1 is refused, even with its own CA")
    func tlsOlderThan12IsRefused() async throws {
        let authority = try TestCertificateAuthority.make()
        defer { authority.remove() }
        // A TLS listener that stops at version 1.1 (BoringSSL through SwiftNIO); the handshake is all that matters.
        let old = try await HTTPTestServer.start(
            tls: try authority.issue(for: "localhost"), maximumTLSVersion: .tlsv11
        ) { _, _ in .status(200) }
        defer { Task { try? await old.stop() } }
        let events = Events()
        let connection = try MQTTConnection(
            options: MQTTOptions(
                host: "localhost", port: Int(old.port), clientID: "tls-version-test", username: nil, password: nil,
                tls: .init(caFile: authority.certificate), minimumReconnectDelay: .milliseconds(200),
                maximumReconnectDelay: .seconds(1)),
            onEvent: events.record)
        connection.start()
        let failure = try await events.waitFor {
            if case .connectFailed = $0 { true } else { false }
        }
        guard case .connectFailed(let reason) = failure else { return }
        #expect(reason.lowercased().contains("version") || reason.contains("protocol"), "\(reason)")
        #expect(!connection.isConnected)
        #expect(old.requests.isEmpty)
        connection.stop()
        _ = try await events.waitFor { $0 == .stopped }
    }

    @Test func aBrokerDownAtStartIsReachedOnceItIsUpAndQueuedPublicationsFollow() async throws {
        let broker = try await MosquittoBroker.start()
        await broker.stop()
        let events = Events()
        let connection = try MQTTConnection(options: Self.options(broker), onEvent: events.record)
        connection.start()
        let failure = try await events.waitFor {
            if case .connectFailed = $0 { true } else { false }
        }
        #expect(failure == .connectFailed(reason: "Connection refused"))
        let id = try connection.publish(MQTTMessage(topic: "doors/queued", text: "while down", qos: 1))
        try await broker.resume()
        let subscriber = try await MQTTSubscriber(broker: broker, filter: "doors/#")
        _ = try await events.waitFor { $0 == .connected }
        _ = try await events.waitFor { $0 == .acknowledged(messageID: id) }
        _ = subscriber
        connection.stop()
    }
}
