import Foundation
public import LiveAssociations
public import Logging
import PeriodicWork
public import ServiceLifecycle
public import StateStore
import Synchronization
import TagRules
import UnixSignals

/// Keeps the live association files of the rules fresh (docs/rules.md, "Live association files"): at start the
/// cached copies are installed in the ``RuleStore``; then each domain is fetched when it has never been, every
/// ``interval`` after a success, every ``retryInterval`` after a failure, and at once on SIGHUP. A copy written
/// by `tagrouter aasa refresh` is picked up within a second. Rules that name no live domain cost nothing: the
/// refresher then sleeps until the rules are reloaded. Fetching happens here, never on a tap's path: a
/// tap matches with the files installed at that moment.
public final class AssociationRefresher: Service, CustomStringConvertible {
    /// The default refresh interval: 24 hours.
    public static let defaultInterval: Duration = .seconds(24 * 3600)

    let store: RuleStore
    let cache: StateDatabase?
    let fetcher: AssociationFetcher
    /// How long a good copy is used before it is checked again.
    public let interval: Duration
    /// How long after a failed attempt a domain is tried again: the interval, at most 15 minutes.
    public let retryInterval: Duration
    let tick: Duration
    let logger: Logger
    private let entries = Mutex<[String: CachedAssociation]>([:])
    private let isForced = Atomic<Bool>(false)

    /// Creates the refresher.
    /// - Parameters:
    ///   - store: the rules, whose live domains are refreshed and which take the files.
    ///   - cache: the state database; nil in a dry run (copies are then kept in memory only).
    ///   - fetcher: the fetcher (shut down when the service stops).
    ///   - interval: how long a good copy is used before it is checked again.
    ///   - tick: how often due domains and the cache are looked at.
    ///   - logger: where refreshes are logged.
    public init(
        store: RuleStore, cache: StateDatabase?, fetcher: AssociationFetcher, interval: Duration = defaultInterval,
        tick: Duration = .seconds(1), logger: Logger
    ) {
        self.store = store
        self.cache = cache
        self.fetcher = fetcher
        self.interval = interval
        self.retryInterval = min(interval, .seconds(15 * 60))
        self.tick = tick
        self.logger = logger
    }

    /// Installs the cached copies, then refreshes until graceful shutdown or cancellation.
    /// - Throws: an error from shutting the fetcher's HTTP client down.
    public func run() async throws {
        loadCache()
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in signals.cancelOnGracefulShutdown() {
                    self.logger.info("aasa.refresh_requested", metadata: ["reason": "SIGHUP"])
                    self.isForced.store(true, ordering: .relaxed)
                }
            }
            group.addTask {
                await self.refreshLoop()
            }
        }
        try await fetcher.shutdown()
    }

    private func refreshLoop() async {
        await Periodic.every(tick) {
            // Rules that name no live domain leave nothing to keep fresh: no tick until they are reloaded.
            while store.ruleSet.liveDomains.isEmpty {
                guard await Periodic.wait(for: store.reloaded) else { return }
            }
            loadCache()
            let forced = isForced.exchange(false, ordering: .relaxed)
            let now = Date()
            for domain in store.ruleSet.liveDomains where forced || isDue(domain, now: now) {
                if Periodic.isStopping { return }
                await refresh(domain)
            }
        }
    }

    /// Whether a domain should be fetched now.
    func isDue(_ domain: String, now: Date) -> Bool {
        guard let entry = entries.withLock({ $0[domain] }) else { return true }
        let wait = entry.lastError == nil && entry.body != nil ? interval : retryInterval
        return now.timeIntervalSince(entry.checkedAt) >= Double(wait.components.seconds)
    }

    /// Refreshes one domain now and installs the result.
    func refresh(_ domain: String) async {
        let previous = entries.withLock { $0[domain] }
        let (outcome, entry) = await AssociationRefresh.refresh(
            domain, previous: previous, ruleSet: store.ruleSet, fetcher: fetcher, cache: cache)
        entries.withLock { $0[domain] = entry }
        switch outcome {
        case .fetched(let bytes):
            logger.info("aasa.fetched", metadata: ["aasa.domain": "\(domain)", "aasa.bytes": "\(bytes)"])
            install()
        case .notModified:
            logger.debug("aasa.not_modified", metadata: ["aasa.domain": "\(domain)"])
            install()
        case .failed(let message):
            let kept =
                previous?.body != nil
                ? "keeping the copy fetched \(previous?.fetchedAt.map(Timestamp.rfc3339) ?? "earlier")"
                : "never fetched: its rules match nothing"
            logger.warning(
                "aasa.refresh_failed: \(kept)", metadata: ["aasa.domain": "\(domain)", "error": "\(message)"])
        }
    }

    /// Reads the cache (written by this service or by `tagrouter aasa refresh`) and installs what changed.
    private func loadCache() {
        guard let cache else { return }
        let stored: [CachedAssociation]
        do {
            stored = try cache.cachedAssociations()
        } catch {
            logger.warning("aasa.cache_unreadable", metadata: ["error": "\(error)"])
            return
        }
        let changed = entries.withLock { entries in
            var changed = false
            for entry in stored where entries[entry.domain] != entry {
                let hadBody = entries[entry.domain]?.body
                let hadFetch = entries[entry.domain]?.fetchedAt
                entries[entry.domain] = entry
                if entry.body != hadBody || entry.fetchedAt != hadFetch { changed = true }
            }
            return changed
        }
        if changed { install() }
    }

    private func install() {
        let files = AssociationRefresh.files(entries.withLock { Array($0.values) })
        store.install(associations: files)
    }

    /// The service's name in lifecycle logs.
    public var description: String { "AssociationRefresher" }
}
