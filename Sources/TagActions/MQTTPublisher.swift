import Foundation
public import Logging
import MQTTClient
public import ServiceLifecycle
public import StateStore
import Synchronization
public import TagRules

/// Publishes `mqtt` actions to the rule set's broker: a `Service` that keeps one libmosquitto connection up for
/// ever (reconnecting with backoff from 1 s doubling to 60 s), hands the outbox's QoS 1 publications to the
/// broker, and marks each delivered on its PUBACK (docs/rules.md, "`mqtt`: publications").
///
/// Durability: ``enqueue(_:)`` writes a QoS 1 publication to the state database before returning; the service
/// hands pending rows to libmosquitto while connected, and libmosquitto sends unacknowledged ones again (DUP)
/// after each reconnection. Rows left pending by a crash are published again at the next start. A row whose
/// `retryFor` passes is kept as failed (`tagrouter history --failed`). QoS 0 is published only while connected
/// and never stored.
///
/// Availability: the host's status document on `<topicPrefix>/status` (retained, QoS 1; docs/fleet.md, "The status
/// document"): the last will `{"state":"offline"}`, the whole document with `"state":"online"` after each connect
/// and whenever ``publishStatus()`` is called, and with `"state":"offline"` on a clean stop. With Home Assistant discovery on, every reader gets a retained
/// discovery message after each connect, when it appears, and when Home Assistant announces itself.
///
/// Logs: one line per connection state change (connected, lost, refused, unreachable), never one per attempt.
public final class MQTTPublisher: Service, Sendable {
    /// Tuning of the publisher.
    public struct Configuration: Sendable {
        /// The TagRouter version, `sw_version` of Home Assistant devices.
        public var version: String
        /// Publications handed to libmosquitto and not yet acknowledged, at most.
        public var maxHandedOver: Int
        /// The first reconnection delay (1 s).
        public var minimumReconnectDelay: Duration
        /// The largest reconnection delay (60 s).
        public var maximumReconnectDelay: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - version: the TagRouter version.
        ///   - maxHandedOver: unacknowledged publications handed to libmosquitto at once (default 5,000).
        ///   - minimumReconnectDelay: the first reconnection delay (default 1 s).
        ///   - maximumReconnectDelay: the largest reconnection delay (default 60 s).
        public init(
            version: String, maxHandedOver: Int = 5_000, minimumReconnectDelay: Duration = .seconds(1),
            maximumReconnectDelay: Duration = .seconds(60)
        ) {
            self.version = version
            self.maxHandedOver = max(1, maxHandedOver)
            self.minimumReconnectDelay = minimumReconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
        }
    }

    /// What the service loop reacts to, in order.
    enum Input: Sendable {
        case connection(MQTTEvent)
        case wake
        /// Look at every pending publication again, those passed over included (``retryPending()``).
        case retry
        /// Every reader present and whether a tag is on it, as the router last told.
        case readers([String: Bool])
        /// The status document changed, or is due again.
        case status
        /// The loop's alarm went off (``PublisherLoop``: acknowledgements to write, a publication's `retryFor`
        /// passed, the stop's deadline).
        case alarm
        case stop
    }

    /// The broker settings from the rules.
    public let settings: MQTTSettings
    /// The state database.
    public let database: StateDatabase
    let configuration: Configuration
    let logger: Logger
    let connection: MQTTConnection?
    let setupError: String?
    let inputs: AsyncStream<Input>
    let input: AsyncStream<Input>.Continuation
    let connected = Atomic<Bool>(false)
    /// Whether a `.wake` is waiting in the inputs: a burst of publications wakes the loop once, not per row.
    let wakePending = Atomic<Bool>(false)
    let onConnectionChange: @Sendable (Bool) -> Void
    /// The host's status document as it is now.
    let status: @Sendable () -> StatusDocument

    /// Creates the publisher (it connects when ``run()`` starts).
    /// - Parameters:
    ///   - settings: the `mqtt:` block.
    ///   - database: the state database.
    ///   - configuration: the tuning.
    ///   - logger: where connection changes and failed publications are logged.
    ///   - onConnectionChange: called with `true` on connect and `false` when the connection is lost (the
    ///     `tagrouter_mqtt_connected` gauge).
    ///   - status: the host's status document as it is now (its `state` is set by the publisher); by default a
    ///     document with the state alone.
    public init(
        settings: MQTTSettings, database: StateDatabase, configuration: Configuration, logger: Logger,
        onConnectionChange: @escaping @Sendable (Bool) -> Void = { _ in },
        status: @escaping @Sendable () -> StatusDocument = { StatusDocument(state: "online") }
    ) {
        self.status = status
        self.settings = settings
        self.database = database
        self.configuration = configuration
        self.logger = logger
        self.onConnectionChange = onConnectionChange
        (inputs, input) = AsyncStream.makeStream(of: Input.self)
        let input = self.input
        do {
            connection = try MQTTConnection(
                options: Self.options(settings, configuration: configuration),
                onEvent: { input.yield(.connection($0)) })
            setupError = nil
        } catch {
            connection = nil
            setupError = "\(error)"
        }
    }

    /// The libmosquitto options for the settings: client id, credentials, TLS, keep-alive and last will.
    static func options(_ settings: MQTTSettings, configuration: Configuration) -> MQTTOptions {
        MQTTOptions(
            host: settings.host, port: settings.port, clientID: settings.clientID, username: settings.username,
            password: settings.password,
            tls: settings.usesTLS
                ? MQTTOptions.TLS(
                    caFile: settings.tls?.ca, certificateFile: settings.tls?.certificate, keyFile: settings.tls?.key)
                : nil,
            keepAliveSeconds: Int(settings.keepAlive.components.seconds),
            will: MQTTMessage(
                topic: settings.statusTopic, payload: StatusDocument.will.payload(), qos: 1, retain: true),
            minimumReconnectDelay: configuration.minimumReconnectDelay,
            maximumReconnectDelay: configuration.maximumReconnectDelay)
    }

    /// Whether the broker has accepted the connection and it has not ended since.
    public var isConnected: Bool { connected.load(ordering: .relaxed) }

    /// Accepts a publication: QoS 1 is written to the outbox (durable once this returns) and the service is
    /// woken; QoS 0 is handed to the broker now if connected.
    /// - Parameter publication: the publication (``StateStore/Delivery/mqtt(_:rule:document:)``).
    /// - Returns: ``ActionOutcome/Result/queued(delivery:)`` (QoS 1), ``ActionOutcome/Result/published`` or
    ///   ``ActionOutcome/Result/failed(reason:)`` (QoS 0).
    /// - Throws: ``ActionError`` (`invalidRequest`, `stateDatabase`).
    public func enqueue(_ publication: Delivery) throws -> ActionOutcome.Result {
        guard publication.kind == .mqtt else {
            throw ActionError(.invalidRequest, "\(publication) is a webhook, not an MQTT publication")
        }
        try publication.validate()
        if publication.qos > 0 {
            let id = try database.insert(publication).id
            if !wakePending.exchange(true, ordering: .acquiringAndReleasing) { input.yield(.wake) }
            return .queued(delivery: id)
        }
        guard let connection, isConnected else {
            return .failed(reason: "not connected to the MQTT broker \(settings.url) (QoS 0 is not stored)")
        }
        try connection.publish(
            MQTTMessage(topic: publication.target, payload: publication.body, qos: 0, retain: publication.retain))
        return .published
    }

    /// Makes the publisher hand over, at once if connected, every pending publication it has not handed over
    /// already: one made pending again after it failed (the console's "retry now", docs/console.md,
    /// "Deliveries") is older than those the publisher has gone past, which it otherwise reads only at its next
    /// start.
    public func retryPending() {
        input.yield(.retry)
    }

    /// Tells the publisher the readers present and whether a tag is on each, as the router's reader state has
    /// them now (Home Assistant discovery publishes a device and a presence sensor for each reader).
    /// - Parameter readers: every reader present, and whether a tag is on it.
    public func readersChanged(_ readers: [String: Bool]) {
        input.yield(.readers(readers))
    }

    /// Publishes the status document again (retained), if connected: something in it changed, or it is due.
    public func publishStatus() {
        input.yield(.status)
    }

    /// The status document with its state.
    func statusMessage(online: Bool) -> MQTTMessage {
        var document = status()
        document.state = online ? "online" : "offline"
        return MQTTMessage(topic: settings.statusTopic, payload: document.payload(), qos: 1, retain: true)
    }

    /// Connects and publishes until graceful shutdown or cancellation; then publishes `offline` and disconnects.
    public func run() async {
        guard let connection else {
            logger.error(
                "mqtt: cannot set up the connection; publications stay in the outbox",
                metadata: ["mqtt.broker": "\(settings.url)", "error": "\(setupError ?? "")"])
            await withGracefulShutdownHandler {
                for await input in inputs where Self.isStop(input) { break }
            } onGracefulShutdown: {
                self.input.yield(.stop)
            }
            return
        }
        connection.start()
        let input = self.input
        await withGracefulShutdownHandler {
            var loop = PublisherLoop(publisher: self, connection: connection)
            await loop.run()
        } onGracefulShutdown: {
            input.yield(.stop)
        }
    }

    private static func isStop(_ input: Input) -> Bool {
        if case .stop = input { return true }
        return false
    }
}
