import Foundation
import MQTTClient
import TagActions
import TagRules

/// A command's short MQTT session (`fleet status`, `bundle publish`): the broker's credentials and CA from the
/// environment, connected through ``TagActions/MQTTProbe/connect(_:timeout:)``, and one sentence when the broker
/// does not accept the connection.
enum BrokerSession {
    /// Connects, and waits for the broker's acceptance.
    /// - Parameters:
    ///   - broker: the broker.
    ///   - clientID: the client id (unique on the broker).
    ///   - environment: `TAGROUTER_MQTT_USERNAME`, `TAGROUTER_MQTT_PASSWORD` and `TAGROUTER_MQTT_CA` (mqtts: the CA
    ///     that signs the broker's certificate; default the system's trust store).
    ///   - timeout: how long the connection may take.
    /// - Returns: the session.
    /// - Throws: ``CommandFailure`` naming the broker and why it did not accept the connection.
    static func connect(
        to broker: BrokerAddress, clientID: String, environment: [String: String], timeout: Duration = .seconds(10)
    ) async throws -> MQTTProbe.Session {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let options = MQTTOptions(
            host: broker.host, port: broker.port, clientID: clientID, username: value("TAGROUTER_MQTT_USERNAME"),
            password: value("TAGROUTER_MQTT_PASSWORD"),
            tls: broker.usesTLS ? MQTTOptions.TLS(caFile: value("TAGROUTER_MQTT_CA")) : nil)
        let (result, session) = await MQTTProbe.connect(options, timeout: timeout)
        switch result {
        case .connected:
            if let session { return session }
            throw CommandFailure("\(broker): cannot connect")
        case .refused(_, let reason):
            throw CommandFailure("\(broker): the broker refused the connection: \(reason)")
        case .unreachable(let reason):
            throw CommandFailure("\(broker): cannot connect (\(reason))")
        case .invalidSettings(let reason):
            throw CommandFailure("\(broker): \(reason)")
        case .timedOut:
            throw CommandFailure("\(broker): cannot connect (no answer within \(timeout))")
        }
    }

    /// A client id unique on the broker: `tagrouter-<hostname>-<what>-<pid>`.
    static func clientID(_ what: String) -> String {
        "\(MQTTSettings.defaultClientID)-\(what)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}
