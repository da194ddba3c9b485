import Deadline
import Foundation
public import MQTTClient
import Synchronization
public import TagRules

/// One connection attempt to the rules' broker, for `tagrouter doctor`: connects under the client id
/// `<clientId>-doctor` (so a running router keeps its session), without a last will, and disconnects; and the
/// connection of the commands' other short sessions (``connect(_:timeout:)``).
public enum MQTTProbe {
    /// What the attempt found.
    public enum Result: Sendable, Hashable {
        /// The broker accepted the connection (CONNACK 0).
        case connected
        /// The broker refused it: its CONNACK code and reason.
        case refused(code: Int, reason: String)
        /// No TCP or TLS connection: the reason (refused, unreachable, certificate).
        case unreachable(String)
        /// The connection could not be set up (an unreadable TLS file).
        case invalidSettings(String)
        /// No answer in time.
        case timedOut
    }

    /// A connection the broker accepted, and its events from then on.
    public struct Session: Sendable {
        /// The connection (stop it when done).
        public let connection: MQTTConnection
        /// Its events after the broker's acceptance, in order.
        public let events: AsyncStream<MQTTEvent>
    }

    /// Tries the broker once.
    /// - Parameters:
    ///   - settings: the `mqtt:` block.
    ///   - timeout: how long to wait for an answer.
    /// - Returns: what happened.
    public static func run(_ settings: MQTTSettings, timeout: Duration = .seconds(5)) async -> Result {
        var options = MQTTPublisher.options(settings, configuration: .init(version: ""))
        options.clientID = String((settings.clientID + "-doctor").prefix(64))
        options.will = nil
        let (result, session) = await connect(options, timeout: timeout)
        session?.connection.stop()
        return result
    }

    /// Connects and waits for the broker's first answer: the one way a command connects for a short session
    /// (`doctor`'s attempt, `fleet status`, `bundle publish`).
    /// - Parameters:
    ///   - options: the broker, identity, credentials and TLS.
    ///   - timeout: how long to wait for the answer.
    /// - Returns: what happened, and the session when the broker accepted the connection (otherwise the
    ///   connection is stopped).
    public static func connect(_ options: MQTTOptions, timeout: Duration) async -> (result: Result, session: Session?) {
        let (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(options: options) { continuation.yield($0) }
        } catch {
            return (.invalidSettings("\(error)"), nil)
        }
        connection.start()
        let first: Result?? = await withDeadline(timeout) {
            for await event in events {
                switch event {
                case .connected: return .connected
                case .refused(let code, let reason): return .refused(code: code, reason: reason)
                case .connectFailed(let reason), .lost(let reason): return .unreachable(reason)
                default: continue
                }
            }
            return nil
        }
        let result = (first ?? nil) ?? .timedOut
        guard result == .connected else {
            connection.stop()
            continuation.finish()
            return (result, nil)
        }
        return (result, Session(connection: connection, events: events))
    }
}
