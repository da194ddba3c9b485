import CoreMetrics
public import Logging
public import PCSC
public import ServiceLifecycle
import Synchronization

/// The router: watches the readers and turns each presentation into a read, a match and a dispatch.
///
/// A `Service`: it runs until graceful shutdown, then stops watching, lets taps in progress finish for up to
/// ``Configuration/gracePeriod`` and cancels what is left (commands are then killed; webhooks already queued
/// stay in the outbox).
public final class Router: Service, Sendable {
    /// How the router behaves.
    public struct Configuration: Sendable {
        /// Only readers for which this returns `true` are used (`--reader`).
        public var acceptsReader: @Sendable (String) -> Bool
        /// How long taps in progress may take to finish at shutdown.
        public var gracePeriod: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - acceptsReader: the reader filter; every reader by default.
        ///   - gracePeriod: the shutdown grace period; 3 s by default, so the whole exit stays under 5 s.
        public init(
            acceptsReader: @escaping @Sendable (String) -> Bool = { _ in true }, gracePeriod: Duration = .seconds(3)
        ) {
            self.acceptsReader = acceptsReader
            self.gracePeriod = gracePeriod
        }
    }

    let configuration: Configuration
    let watcher: ReaderWatcher
    let pipeline: TapPipeline
    let logger: Logger
    let presentations = Mutex(Presentations())
    let readers = Mutex(Set<String>())
    let inFlight = Mutex(0)

    /// Creates the router.
    /// - Parameters:
    ///   - configuration: the reader filter and grace period.
    ///   - watcher: the reader watcher.
    ///   - pipeline: what happens to each tap.
    ///   - logger: where the router logs.
    public init(configuration: Configuration, watcher: ReaderWatcher, pipeline: TapPipeline, logger: Logger) {
        self.configuration = configuration
        self.watcher = watcher
        self.pipeline = pipeline
        self.logger = logger
    }

    /// Watches and dispatches until graceful shutdown or cancellation.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await event in watcher.cancelOnGracefulShutdown() {
                if case .serviceLost = event {
                    await pipeline.readContext.reset()
                }
                if let tap = handle(event) {
                    inFlight.withLock { $0 += 1 }
                    group.addTask {
                        await self.pipeline.tap(tap, presentations: self.presentations)
                        self.inFlight.withLock { $0 -= 1 }
                    }
                }
            }
            logger.info("router.stopping", metadata: ["taps.in_flight": "\(inFlight.withLock { $0 })"])
            let deadline = ContinuousClock.now + configuration.gracePeriod
            while inFlight.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            group.cancelAll()
        }
        await pipeline.readContext.reset()
    }

    /// Updates the presentation state for one watcher event; returns a tap to read when it starts one.
    func handle(_ event: ReaderEvent) -> Tap? {
        switch event {
        case .readerAdded(let name):
            guard configuration.acceptsReader(name) else {
                logger.debug("reader.skipped", metadata: ["reader.name": "\(name)"])
                return nil
            }
            let count = readers.withLock {
                $0.insert(name); return $0.count
            }
            pipeline.metrics.readersPresent.record(count)
            logger.info("reader.added", metadata: ["reader.name": "\(name)"])
        case .readerRemoved(let name):
            guard configuration.acceptsReader(name) else { return nil }
            let count = readers.withLock {
                $0.remove(name); return $0.count
            }
            pipeline.metrics.readersPresent.record(count)
            presentations.withLock { $0.readerRemoved(reader: name) }
            logger.info("reader.removed", metadata: ["reader.name": "\(name)"])
            if count == 0 { logger.info("waiting for a reader…") }
        case .cardPresented(let reader, let atr, let eventCount):
            guard configuration.acceptsReader(reader) else { return nil }
            let received = ContinuousClock.now
            let action = presentations.withLock { $0.cardPresented(reader: reader, eventCount: eventCount) }
            guard case .read(let serial) = action else { return nil }
            return Tap(reader: reader, atr: atr, serial: serial, received: received)
        case .cardRemoved(let reader):
            presentations.withLock { $0.cardRemoved(reader: reader) }
        case .serviceLost(let error):
            logger.warning(
                "pcscd is not reachable; retrying until it is back", metadata: ["error": "\(error)"])
        case .serviceBack:
            logger.info("pcscd is back")
        }
        return nil
    }
}

/// One presentation to read: the reader, the card's ATR, its presentation serial and when it was reported.
public struct Tap: Sendable {
    /// The reader name.
    public var reader: String
    /// The ATR.
    public var atr: [UInt8]
    /// The presentation serial from ``Presentations``.
    public var serial: UInt64
    /// When the watcher reported the card.
    public var received: ContinuousClock.Instant
}
