public import BundleFormat
public import FleetBundle
public import Foundation
import MQTTClient
import Synchronization

/// An MQTT bundle source (docs/fleet.md, "Sources"): a libmosquitto connection that subscribes to the source's
/// topic after every connect and reports each retained (or live) message on it, so the broker's retained message
/// is read at start-up and after every reconnection, and a new one as soon as it is published.
public final class BundleSubscription: Sendable {
    /// What the subscription reports, in order.
    public enum Update: Sendable, Equatable {
        /// A message on the topic: the bundle file's bytes.
        case bundle(Data)
        /// The broker accepted the connection.
        case connected
        /// The broker cannot be reached or refused the connection, or the connection was lost; it is retried with
        /// backoff.
        case problem(String)
    }

    /// The source.
    public let source: BundleSource
    /// The updates, until ``stop()``.
    public let updates: AsyncStream<Update>
    let connection: MQTTConnection

    /// Sets up the subscription (it connects at ``start()``).
    /// - Parameters:
    ///   - source: an MQTT source.
    ///   - credentials: the user name and password, if the broker wants them.
    ///   - caFile: for `mqtts://`, a PEM file of the CA that signs the broker's certificate; nil for the system's
    ///     trust store.
    ///   - clientID: the MQTT client id (unique on the broker).
    ///   - minimumReconnectDelay: the first reconnection delay (1 s).
    /// - Throws: ``BundleError`` with code ``BundleError/Code/source`` when libmosquitto refuses the settings (an
    ///   unreadable CA file).
    public init(
        source: BundleSource, credentials: BundleSource.Credentials = .init(), caFile: String? = nil,
        clientID: String, minimumReconnectDelay: Duration = .seconds(1)
    ) throws(BundleError) {
        guard let topic = source.topic else {
            throw BundleError(.source, "\(source): not an MQTT source")
        }
        self.source = source
        let (updates, continuation) = AsyncStream.makeStream(of: Update.self)
        self.updates = updates
        let holder = ConnectionHolder()
        let options = MQTTOptions(
            host: source.host, port: source.port, clientID: clientID, username: credentials.username,
            password: credentials.password, tls: source.usesTLS ? MQTTOptions.TLS(caFile: caFile) : nil,
            minimumReconnectDelay: minimumReconnectDelay)
        do {
            connection = try MQTTConnection(options: options) { event in
                switch event {
                case .connected:
                    continuation.yield(.connected)
                    do {
                        try holder.connection.withLock { $0 }?.subscribe(topic, qos: 1)
                    } catch {
                        continuation.yield(.problem("cannot subscribe to \(topic): \(error)"))
                    }
                case .message(let message) where message.topic == topic:
                    // An empty retained message clears the topic: there is no bundle to consider.
                    if !message.payload.isEmpty { continuation.yield(.bundle(Data(message.payload))) }
                case .refused(_, let reason):
                    continuation.yield(.problem("the broker refused the connection: \(reason)"))
                case .connectFailed(let reason), .lost(let reason):
                    continuation.yield(.problem(reason))
                case .stopped:
                    holder.connection.withLock { $0 = nil }
                    continuation.finish()
                case .message, .acknowledged:
                    break
                }
            }
        } catch {
            throw BundleError(.source, "\(source): \(error)")
        }
        holder.connection.withLock { $0 = connection }
    }

    /// Connects (once), in the background.
    public func start() {
        connection.start()
    }

    /// Disconnects; ``updates`` then ends.
    public func stop() {
        connection.stop()
    }
}

/// The connection, for its own event handler to subscribe with after each connect (set once it exists, cleared when
/// it stops).
private final class ConnectionHolder: Sendable {
    let connection = Mutex<MQTTConnection?>(nil)
}
