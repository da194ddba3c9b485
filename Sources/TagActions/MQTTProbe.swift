import Deadline
import Foundation
import MQTTClient
import Synchronization
public import TagRules

/// One connection attempt to the rules' broker, for `tagrouter doctor`: connects under the client id
/// `<clientId>-doctor` (so a running router keeps its session), without a last will, and disconnects.
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

    /// Tries the broker once.
    /// - Parameters:
    ///   - settings: the `mqtt:` block.
    ///   - timeout: how long to wait for an answer.
    /// - Returns: what happened.
    public static func run(_ settings: MQTTSettings, timeout: Duration = .seconds(5)) async -> Result {
        var options = MQTTPublisher.options(settings, configuration: .init(version: ""))
        options.clientID = String((settings.clientID + "-doctor").prefix(64))
        options.will = nil
        let (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(options: options) { continuation.yield($0) }
        } catch {
            return .invalidSettings("\(error)")
        }
        connection.start()
        defer { connection.stop() }
        defer { continuation.finish() }
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
        return (first ?? nil) ?? .timedOut
    }
}
