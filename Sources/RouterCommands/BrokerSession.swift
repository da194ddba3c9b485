import Foundation
import MQTTClient
import TagRules

/// A short MQTT session of a command (`fleet status`, `bundle publish`): connects to a broker through libmosquitto,
/// reports its events as a stream, and fails with one sentence when the broker cannot be reached in time.
struct BrokerSession {
    let connection: MQTTConnection
    let events: AsyncStream<MQTTEvent>

    /// Connects, and waits for the broker's acceptance.
    /// - Parameters:
    ///   - broker: the broker.
    ///   - clientID: the client id (unique on the broker).
    ///   - environment: `TAGROUTER_MQTT_USERNAME`, `TAGROUTER_MQTT_PASSWORD` and `TAGROUTER_MQTT_CA` (mqtts: the CA
    ///     that signs the broker's certificate; default the system's trust store).
    ///   - timeout: how long the connection may take.
    /// - Throws: ``CommandFailure`` naming the broker and why it did not accept the connection.
    static func connect(
        to broker: BrokerAddress, clientID: String, environment: [String: String], timeout: Duration = .seconds(10)
    ) async throws -> BrokerSession {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let options = MQTTOptions(
            host: broker.host, port: broker.port, clientID: clientID, username: value("TAGROUTER_MQTT_USERNAME"),
            password: value("TAGROUTER_MQTT_PASSWORD"),
            tls: broker.usesTLS ? MQTTOptions.TLS(caFile: value("TAGROUTER_MQTT_CA")) : nil,
            maximumReconnectDelay: .seconds(1))
        let (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(options: options) { continuation.yield($0) }
        } catch {
            throw CommandFailure("\(broker): \(error)")
        }
        connection.start()
        let timer = Task {
            try await Task.sleep(for: timeout)
            continuation.yield(.connectFailed(reason: "no answer within \(timeout)"))
            continuation.yield(.stopped)
        }
        defer { timer.cancel() }
        var lastProblem = "no answer"
        for await event in events {
            switch event {
            case .connected:
                return BrokerSession(connection: connection, events: events)
            case .refused(_, let reason):
                connection.stop()
                throw CommandFailure("\(broker): the broker refused the connection: \(reason)")
            case .connectFailed(let reason), .lost(let reason):
                lastProblem = reason
            case .stopped:
                connection.stop()
                throw CommandFailure("\(broker): cannot connect (\(lastProblem))")
            case .acknowledged, .message:
                break
            }
        }
        throw CommandFailure("\(broker): cannot connect (\(lastProblem))")
    }

    /// A client id unique on the broker: `tagrouter-<hostname>-<what>-<pid>`.
    static func clientID(_ what: String) -> String {
        "\(MQTTSettings.defaultClientID)-\(what)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}
