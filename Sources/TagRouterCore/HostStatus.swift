import Foundation
public import Logging
import PeriodicWork
public import ServiceLifecycle
public import StateStore
import Synchronization
public import TagActions

/// The host's status document (docs/fleet.md, "The status document"): what it is made of, and a `Service` that has
/// the MQTT publisher publish it again (retained) whenever something in it changes and every minute (uptime,
/// outbox), until graceful shutdown. The publisher itself publishes it after every connect.
public final class HostStatus: Service, Sendable, CustomStringConvertible {
    let started = ContinuousClock.now
    let keeper: BundleKeeper?
    let outbox: StateDatabase?
    let interval: Duration
    let logger: Logger
    let wakeup = Wakeup()
    private let parts = Mutex<Parts>(Parts())
    /// How often the document is published again with nothing changed.
    public static let defaultInterval: Duration = .seconds(60)

    /// Where the router's own parts of the document come from, set once the router exists.
    struct Parts {
        var readers: @Sendable () -> [StatusDocument.Reader] = { [] }
        var lockouts: @Sendable () -> [StatusDocument.Lockout] = { [] }
        var publish: @Sendable () -> Void = {}
    }

    /// Creates the status.
    /// - Parameters:
    ///   - keeper: the host's bundles, if it takes any.
    ///   - outbox: the state database whose pending deliveries are counted, if any (not in a dry run).
    ///   - interval: how often the document is published with nothing changed (a minute).
    ///   - logger: where a failing outbox count is logged.
    public init(keeper: BundleKeeper?, outbox: StateDatabase?, interval: Duration = defaultInterval, logger: Logger) {
        self.keeper = keeper
        self.outbox = outbox
        self.interval = interval
        self.logger = logger
        keeper?.observe { [wakeup] in wakeup.signal() }
    }

    /// Sets where the readers and lockouts are read (the router's snapshots) and how the document is published.
    /// - Parameters:
    ///   - readers: the readers present and their state.
    ///   - lockouts: the readers locked out now.
    ///   - publish: publishes the document (the MQTT publisher's ``TagActions/MQTTPublisher/publishStatus()``).
    public func attach(
        readers: @escaping @Sendable () -> [StatusDocument.Reader],
        lockouts: @escaping @Sendable () -> [StatusDocument.Lockout], publish: @escaping @Sendable () -> Void
    ) {
        parts.withLock { $0 = Parts(readers: readers, lockouts: lockouts, publish: publish) }
    }

    /// Something in the document changed: it is published again at once.
    public func changed() {
        wakeup.signal()
    }

    /// The document as it is now, `online`.
    /// - Returns: the document.
    public func document() -> StatusDocument {
        let (readers, lockouts) = parts.withLock { ($0.readers, $0.lockouts) }
        let bundle = keeper?.inForce.map {
            StatusDocument.Bundle(version: $0.version, sha256: $0.digest, source: $0.source)
        }
        let refused = keeper?.lastRefused.map {
            StatusDocument.RefusedBundle(
                version: $0.version, reason: $0.reason, error: $0.message, source: $0.source,
                at: Timestamp.rfc3339($0.time))
        }
        var pending = 0
        if let outbox {
            do {
                pending = try outbox.pendingCounts().values.reduce(0, +)
            } catch {
                logger.warning("status.outbox_count_failed", metadata: ["error": "\(error)"])
            }
        }
        return StatusDocument(
            state: "online", version: Version.current, bundle: bundle, refusedBundle: refused, readers: readers(),
            outbox: pending, clock: StatusDocument.Clock(synchronized: ClockSync.isSynchronized, source: "adjtimex"),
            uptime: Int((ContinuousClock.now - started).components.seconds), lockouts: lockouts(),
            updated: Timestamp.rfc3339(Date()))
    }

    /// Publishes the document on every change and every ``interval`` until graceful shutdown or cancellation.
    public func run() async {
        while !Periodic.isStopping {
            await cancelWhenGracefulShutdown { await self.wakeup.wait(for: self.interval) }
            guard !Periodic.isStopping else { return }
            parts.withLock { $0.publish }()
        }
    }

    /// The service's name in lifecycle logs.
    public var description: String { "HostStatus" }
}
