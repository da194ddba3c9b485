import Console
import Logging
import ServiceLifecycle
import StateStore
import TagActions

extension RouterLauncher {
    /// The web console's service (docs/console.md), fed by the router: every tap through
    /// ``Router/Configuration/liveTaps``, readers and presence through ``Router/Configuration/readersChanged`` (still
    /// called for whoever set it before, such as MQTT's discovery).
    /// - Parameters:
    ///   - settings: the console's settings.
    ///   - console: where and how it listens.
    ///   - configuration: the router's configuration, to feed the console from.
    ///   - store: the rules in force.
    ///   - database: the state database; nil in a dry run.
    ///   - worker: the outbox worker, woken when a delivery is made due from the console.
    ///   - mqtt: the MQTT publisher, told to look at its pending publications again then.
    ///   - metrics: where dropped live events are counted.
    ///   - logger: where the console logs.
    /// - Returns: the service.
    /// - Throws: ``Console/ConsoleError`` when the console cannot be served as configured.
    static func consoleService<Events>(
        _ settings: ConsoleSettings, listening console: ConsoleConfiguration,
        feeding configuration: inout Router<Events>.Configuration, store: RuleStore,
        database: StateDatabase?, worker: OutboxWorker?, mqtt: MQTTPublisher?, metrics: RouterMetrics, logger: Logger
    ) throws(ConsoleError) -> any Service {
        try console.validate()
        let feed = LiveFeed(onDrop: { metrics.consoleDropped() })
        configuration.liveTaps = feed
        let readersChanged = configuration.readersChanged
        configuration.readersChanged = { readers in
            readersChanged(readers)
            feed.readersChanged(readers)
        }
        let console = try WebConsole(
            configuration: console, feed: feed, database: database,
            currentRules: { store.ruleSet }, tags: settings.tags, ruleTools: settings.ruleTools, logger: logger,
            wakeOutbox: {
                worker?.wake()
                mqtt?.retryPending()
            })
        return try HTTPServer.console(console)
    }
}
