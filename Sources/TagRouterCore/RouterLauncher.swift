import BundleFormat
import BundleSources
import Console
import FleetBundle
import Foundation
import LiveAssociations
public import Logging
import PCSC
import Prometheus
import ServiceLifecycle
import StateStore
import TagActions
public import TagRules
import UnixSignals

/// The composition root of `tagrouter run`: loads the rules, opens the state database, wires the services
/// into one `ServiceGroup` and runs it until SIGTERM or SIGINT.
public enum RouterLauncher {
    /// How a run ended.
    public enum Outcome: Sendable, Equatable {
        /// Stopped by a signal after a clean shutdown (exit status 0).
        case stopped
        /// The rules were invalid at start-up; the diagnostics were printed (exit status 1).
        case invalidRules
        /// The state directory could not be used (exit status 1).
        case stateUnavailable(String)
        /// The live association files cannot be fetched as configured: `TAGROUTER_AASA_CA` or
        /// `TAGROUTER_AASA_CONNECT_TO` is unusable (exit status 1).
        case invalidAssociationSettings(String)
        /// The bundle sources cannot be used as configured: `TAGROUTER_BUNDLE_CA` is unusable (exit status 1).
        case invalidBundleSettings(String)
        /// The console cannot be served as configured: a non-loopback address without TLS, unreadable TLS files
        /// (exit status 1).
        case invalidConsoleSettings(String)
    }

    /// Runs the router.
    /// - Parameters:
    ///   - settings: what `tagrouter run` was told.
    ///   - environment: the process environment (`${VAR}` expansion in rules, `PATH` for the opener).
    ///   - logger: where everything logs.
    ///   - printError: where start-up diagnostics are printed (standard error).
    /// - Returns: how the run ended.
    /// - Throws: an error from a service that failed (the metrics address could not be bound, …).
    public static func run(
        settings: RouterSettings, environment: [String: String], logger: Logger,
        printError: @Sendable (String) -> Void
    ) async throws -> Outcome {
        let registry = PrometheusCollectorRegistry()
        let metrics = RouterMetrics(factory: PrometheusMetricsFactory(registry: registry))
        // A host that takes bundles starts with its local overlay and the bundle it kept (docs/fleet.md).
        let keeper =
            settings.takesBundles
            ? BundleKeeper(
                stateDirectory: settings.stateDirectory, overlay: settings.rulesSources,
                trustedKeys: settings.bundleKeys, logger: logger, metrics: metrics,
                allowsRollback: settings.bundleAllowsRollback) : nil
        let sources = keeper?.restore() ?? settings.rulesSources
        let loaded = RuleSet.load(sources: sources, environment: environment)
        guard let ruleSet = loaded.ruleSet else {
            printError(CheckReport(loaded).text)
            return .invalidRules
        }
        for warning in loaded.diagnostics where warning.severity == .warning {
            logger.warning("rules.diagnostic", metadata: ["diagnostic": "\(warning.headline)"])
        }
        let store = RuleStore(sources: sources, environment: environment, initial: ruleSet, logger: logger)

        var services: [any Service] = []

        var outbox: StateDatabase?
        var worker: OutboxWorker?
        if !settings.isDryRun {
            do {
                // A corrupt database is moved aside for a fresh one (logged, counted, shown by `tagrouter doctor`):
                // a restart would find it corrupt again, and the door would stay down.
                let opened = try StateDatabase(
                    directory: settings.stateDirectory, movesCorruptFileAside: true, logger: logger)
                if opened.movedAside != nil { metrics.stateDatabaseRecovered() }
                // An upgrade from a release with an intake log loses nothing: what it holds is imported once.
                try opened.importLegacyIntakeLog()
                let outboxWorker = OutboxWorker(
                    database: opened,
                    configuration: .init(userAgent: "tagrouter/\(Version.current)", environment: environment),
                    logger: logger)
                outbox = opened
                worker = outboxWorker
                services.append(outboxWorker)
                services.append(OutboxGauge(outbox: opened, metrics: metrics, logger: logger))
                services.append(
                    HistoryPruner(
                        database: opened, retention: { HistoryPruner.retention(store.ruleSet.history) },
                        logger: logger))
            } catch {
                printError("state directory \(settings.stateDirectory): \(error)")
                return .stateUnavailable("\(error)")
            }
        }
        let opener = try? Opener.find(searchPath: environment["PATH"])
        if opener == nil, ruleSet.rules.contains(where: { $0.actions.contains(where: \.isOpen) }) {
            logger.warning("no URL opener (xdg-open) on PATH: open actions will fail; install xdg-utils")
        }
        let runner = CommandRunner(concurrency: settings.concurrency, environment: environment, logger: logger)
        let status = HostStatus(keeper: keeper, outbox: outbox, logger: logger)
        let mqtt = makeMQTTPublisher(ruleSet: ruleSet, outbox: outbox, metrics: metrics, status: status, logger: logger)
        if let mqtt { services.append(mqtt) }
        // The router handles the events on the thread the watcher waits on, and each tap on its reader's thread.
        let watchThread = BlockingThread(name: "pcsc-watch")
        let watcher = ReaderWatcher(logger: logger, thread: watchThread)
        var routerConfiguration = Router<ReaderWatcher>.Configuration(acceptsReader: settings.acceptsReader)
        routerConfiguration.eventExecutor = watchThread
        let notifier = ServiceNotifier()
        let readiness = "watching readers with \(ruleSet.rules.count) rule\(ruleSet.rules.count == 1 ? "" : "s")"
        let confirmer = DesktopNotifications()
        routerConfiguration.stopEvents = {
            notifier.stopping()
            watcher.stop()
            // A question on screen would hold its tap, and the shutdown, for up to 2 minutes: closed now.
            confirmer.stop()
        }
        routerConfiguration.eventHandled = { notifier.alive() }
        routerConfiguration.heartbeat = { notifier.ready(status: readiness) }
        routerConfiguration.statusChanged = { status.changed() }
        if let mqtt {
            routerConfiguration.readersChanged = { mqtt.readersChanged($0) }
            routerConfiguration.decisions = decisionStream(mqtt, store: store, logger: logger)
        }
        if let console = settings.console, let configuration = console.configuration(with: ruleSet.console) {
            do {
                services.append(
                    try consoleService(
                        console, listening: configuration, feeding: &routerConfiguration, store: store,
                        database: outbox, worker: worker, mqtt: mqtt,
                        metrics: metrics, logger: logger))
            } catch {
                printError(error.description)
                return .invalidConsoleSettings(error.description)
            }
        }
        let router = Router(
            configuration: routerConfiguration, events: watcher,
            cardReader: PCSCCardReader(logger: logger), rules: store,
            dispatch: worker.map {
                .perform(
                    ActionExecutor(
                        runner: runner, opener: opener, outbox: $0, mqtt: mqtt,
                        typist: Typist.find(environment: environment), logger: logger))
            }
                ?? .dryRun,
            history: outbox, sunCounters: outbox, metrics: metrics, logger: logger, confirmer: confirmer)
        if let mqtt { services.append(attach(status, router: router, mqtt: mqtt)) }
        services.append(RulesReloader(store: store, logger: logger))
        if let keeper, !settings.bundleSources.isEmpty {
            do {
                let fetcher = try BundleFetcher(
                    extraTrustAnchors: settings.bundleTrustAnchors, userAgent: "tagrouter/\(Version.current)")
                services.append(
                    BundleUpdater(
                        sources: settings.bundleSources.filter { !$0.isMQTT },
                        subscriptions: try bundleSubscriptions(settings), interval: settings.bundlePoll,
                        fetcher: fetcher, keeper: keeper, store: store, logger: logger))
            } catch {
                printError(error.message)
                return .invalidBundleSettings(error.message)
            }
        }
        do {
            var fetch = try AssociationFetcher.Configuration.from(environment: environment)
            fetch.userAgent = "tagrouter/\(Version.current)"
            services.append(
                AssociationRefresher(
                    store: store, cache: outbox, fetcher: try AssociationFetcher(configuration: fetch),
                    interval: settings.associationRefreshInterval, logger: logger))
        } catch {
            printError("\(error)")
            return .invalidAssociationSettings("\(error)")
        }
        if let address = settings.metricsAddress {
            services.append(MetricsServer(host: address.host, port: address.port, registry: registry, logger: logger))
        }
        // Graceful shutdown goes through the services in reverse order: the router, last here, stops watching
        // first and lets taps in progress finish within the group's budget; then the others stop.
        services.append(router)

        await announce(ruleCount: ruleSet.rules.count, settings: settings, logger: logger)
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = settings.gracePeriod
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
        logger.info("stopped")
        return .stopped
    }

    /// Says what the router starts with: `watching N readers with M rules`, `waiting for a reader…`, or that
    /// pcscd is not running yet.
    static func announce(ruleCount: Int, settings: RouterSettings, logger: Logger) async {
        let rules = "\(ruleCount) rule\(ruleCount == 1 ? "" : "s")"
        let mode = settings.isDryRun ? " (dry run: nothing will be done)" : ""
        do {
            let readers = try await PCSCContext.withContext(logger: logger) { context in
                ((try? await context.readers()) ?? []).filter(settings.acceptsReader)
            }
            if readers.isEmpty {
                logger.info("waiting for a reader… (\(rules) loaded)\(mode)")
            } else {
                logger.info(
                    "watching \(readers.count) reader\(readers.count == 1 ? "" : "s") with \(rules)\(mode)",
                    metadata: ["readers": "\(readers.joined(separator: ", "))"])
            }
        } catch {
            logger.warning(
                "pcscd is not running: waiting for it… (\(rules) loaded)\(mode)", metadata: ["error": "\(error)"])
        }
    }
}

extension Action {
    /// Whether this is an `open` action (which needs a URL opener).
    public var isOpen: Bool {
        if case .open = self { return true }
        return false
    }
}
