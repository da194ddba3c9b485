import BundleFormat
public import BundleSources
public import FleetBundle
import Foundation
public import Logging
import PeriodicWork
public import ServiceLifecycle
import UnixSignals

/// Polls the bundle sources (docs/fleet.md, "Sources"): the HTTP ones every interval, and at once on SIGHUP; the MQTT
/// ones as their topic's message arrives (after every connect, and when a new one is published). Each bundle is
/// handed to the ``BundleKeeper``, once per content (SIGHUP considers every bundle again, the last message of each
/// MQTT source included). A source that cannot be reached is logged and tried again; the rules in force stay.
public struct BundleUpdater: Service, CustomStringConvertible {
    let sources: [BundleSource]
    let subscriptions: [BundleSubscription]
    let interval: Duration
    let fetcher: BundleFetcher
    let keeper: BundleKeeper
    let store: RuleStore
    let logger: Logger

    /// Creates the updater.
    /// - Parameters:
    ///   - sources: the URLs polled (HTTP sources).
    ///   - subscriptions: the MQTT sources, started by ``run()``.
    ///   - interval: the pause between two polls.
    ///   - fetcher: the HTTP client.
    ///   - keeper: where bundles fetched go.
    ///   - store: the rules in force.
    ///   - logger: where fetch failures are logged.
    public init(
        sources: [BundleSource], subscriptions: [BundleSubscription] = [], interval: Duration, fetcher: BundleFetcher,
        keeper: BundleKeeper, store: RuleStore, logger: Logger
    ) {
        self.sources = sources
        self.subscriptions = subscriptions
        self.interval = interval
        self.fetcher = fetcher
        self.keeper = keeper
        self.store = store
        self.logger = logger
    }

    /// The `ETag` and digest last seen per source, so an unchanged bundle is neither fetched again nor refused
    /// again.
    actor Seen {
        var etags: [BundleSource: String] = [:]
        var digests: [BundleSource: String] = [:]
        /// The last message of each MQTT source, considered again on SIGHUP.
        var messages: [BundleSource: Data] = [:]

        func etag(_ source: BundleSource) -> String? { etags[source] }

        /// Forgets every answer, so that the next poll fetches each bundle in full and considers it again (a bundle
        /// refused for a conflict with the overlay is taken once the overlay is fixed).
        func forget() {
            etags = [:]
            digests = [:]
        }

        /// Records what a source answered; returns whether it differs from its last answer.
        func record(_ source: BundleSource, message: Data) -> Bool {
            messages[source] = message
            return record(source, etag: nil, digest: SignedBundle.digest(of: message))
        }

        /// The last message of each MQTT source.
        func lastMessages() -> [(BundleSource, Data)] {
            messages.sorted { $0.key.description < $1.key.description }.map { ($0.key, $0.value) }
        }

        func record(_ source: BundleSource, etag: String?, digest: String) -> Bool {
            etags[source] = etag
            defer { digests[source] = digest }
            return digests[source] != digest
        }
    }

    /// Polls until graceful shutdown or cancellation.
    public func run() async throws {
        let seen = Seen()
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in signals.cancelOnGracefulShutdown() {
                    logger.info("bundle.poll_requested", metadata: ["reason": "SIGHUP"])
                    await seen.forget()
                    await pollAll(seen)
                    for (source, message) in await seen.lastMessages() {
                        _ = await seen.record(source, message: message)
                        keeper.consider(message, from: "\(source)", store: store)
                    }
                }
            }
            if !sources.isEmpty {
                group.addTask {
                    await Periodic.every(interval) { await pollAll(seen) }
                }
            }
            for subscription in subscriptions {
                group.addTask { await follow(subscription, seen) }
            }
        }
        try? await fetcher.shutdown()
    }

    /// Considers each message of an MQTT source until graceful shutdown, then disconnects.
    private func follow(_ subscription: BundleSubscription, _ seen: Seen) async {
        let source = subscription.source
        subscription.start()
        var lastProblem: String?
        for await update in subscription.updates.cancelOnGracefulShutdown() {
            switch update {
            case .connected:
                lastProblem = nil
                logger.info("bundle.source_connected", metadata: ["bundle.source": "\(source)"])
            case .problem(let problem):
                // One line per change, not one per attempt.
                guard problem != lastProblem else { continue }
                lastProblem = problem
                logger.warning(
                    "bundle.fetch_failed: the rules in force stay",
                    metadata: ["bundle.source": "\(source)", "error": "\(BundleFetcher.printable(problem))"])
            case .bundle(let data):
                guard await seen.record(source, message: data) else { continue }
                keeper.consider(data, from: "\(source)", store: store)
            }
        }
        subscription.stop()
    }

    /// Asks every source once.
    func pollAll(_ seen: Seen) async {
        for source in sources {
            await poll(source, seen)
        }
    }

    private func poll(_ source: BundleSource, _ seen: Seen) async {
        do {
            switch try await fetcher.fetch(source, etag: await seen.etag(source)) {
            case .notModified:
                logger.debug("bundle.not_modified", metadata: ["bundle.source": "\(source)"])
            case .fetched(let data, let etag):
                let changed = await seen.record(source, etag: etag, digest: SignedBundle.digest(of: data))
                guard changed else { return }
                keeper.consider(data, from: "\(source)", store: store)
            }
        } catch {
            logger.warning(
                "bundle.fetch_failed: the rules in force stay",
                metadata: ["bundle.source": "\(source)", "error": "\(error.message)"])
        }
    }

    /// The service's name in lifecycle logs.
    public var description: String { "BundleUpdater" }
}
