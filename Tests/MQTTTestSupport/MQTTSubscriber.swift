import Foundation
public import MQTTClient
import Synchronization
public import TestSupport

/// A real MQTT client (libmosquitto) subscribed to a topic filter on a test broker, recording every message it
/// receives. Its session is persistent (clean session off, QoS 1), so messages published while a broker
/// restarts still reach it.
public final class MQTTSubscriber: Sendable {
    /// What the network thread's callback updates.
    private final class State: Sendable {
        let received = Mutex<[MQTTMessage]>([])
        let connections = Atomic<Int>(0)
        let connection = Mutex<MQTTConnection?>(nil)
    }

    private let connection: MQTTConnection
    private let state = State()

    /// Connects as `tagrouter`/`door-secret` and subscribes to `filter` (again after each reconnection).
    /// - Parameters:
    ///   - broker: the broker.
    ///   - filter: the topic filter, `#` by default.
    /// - Throws: ``HarnessError`` when it is not connected within 10 s.
    public init(broker: MosquittoBroker, filter: String = "#") async throws {
        let options = MQTTOptions(
            host: "127.0.0.1", port: Int(broker.port), clientID: "test-subscriber-\(UInt32.random(in: 0...UInt32.max))",
            username: MosquittoBroker.username, password: MosquittoBroker.password,
            minimumReconnectDelay: .milliseconds(100), maximumReconnectDelay: .milliseconds(500), cleanSession: false)
        let state = self.state
        connection = try MQTTConnection(options: options) { event in
            switch event {
            case .connected:
                try? state.connection.withLock { $0 }?.subscribe(filter, qos: 1)
                state.connections.add(1, ordering: .relaxed)
            case .message(let message):
                state.received.withLock { $0.append(message) }
            default:
                break
            }
        }
        state.connection.withLock { $0 = connection }
        connection.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while state.connections.load(ordering: .relaxed) == 0 {
            guard ContinuousClock.now < deadline else { throw HarnessError("the test subscriber did not connect") }
            try await Task.sleep(for: .milliseconds(10))
        }
        // The SUBACK is not awaited; a short pause lets the subscription settle.
        try await Task.sleep(for: .milliseconds(100))
    }

    deinit {
        state.connection.withLock { $0 = nil }
        connection.stop()
    }

    /// Every message received so far, in order.
    public var messages: [MQTTMessage] { state.received.withLock { $0 } }

    /// The messages received on one topic.
    /// - Parameter topic: the exact topic.
    /// - Returns: those messages, in order.
    public func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Waits until `count` messages satisfying `predicate` have arrived.
    /// - Parameters:
    ///   - count: how many.
    ///   - timeout: how long to wait.
    ///   - predicate: which messages count.
    /// - Returns: those messages.
    /// - Throws: ``HarnessError`` naming what arrived, when they do not arrive in time.
    @discardableResult
    public func waitFor(
        _ count: Int, timeout: Duration = .seconds(15), where predicate: @Sendable (MQTTMessage) -> Bool = { _ in true }
    ) async throws -> [MQTTMessage] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = messages.filter(predicate)
            if matching.count >= count { return matching }
            guard ContinuousClock.now < deadline else {
                throw HarnessError(
                    "\(matching.count) of \(count) messages arrived within \(timeout); received: "
                        + messages.map { "\($0.topic)=\(String(decoding: $0.payload, as: UTF8.self))" }.joined(
                            separator: ", "))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension MQTTMessage {
    /// The payload as UTF-8 text.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
