public import ArgumentParser
import CSystemd
import Console
public import FleetBundle
public import Logging
public import TagRouterCore

#if canImport(Glibc)
    import Glibc
#endif

/// What `tagrouter run` is told on its command line (docs/cli.md, "run"), parsed, before defaults are resolved.
public struct RunOptions: Sendable {
    /// `--rules`: files and folders; the configured default when empty.
    public var rules: [String] = []
    /// `--state-dir`.
    public var stateDirectory: String?
    /// `--reader`: every reader by default.
    public var readers = ReaderFilter()
    /// `--dry-run`.
    public var isDryRun = false
    /// `--metrics HOST:PORT`.
    public var metrics: HostAndPort?
    /// `--console HOST:PORT`: the web console (docs/console.md).
    public var console: HostAndPort?
    /// `--console-certificate`: the console's TLS certificate chain (PEM).
    public var consoleCertificate: String?
    /// `--console-key`: the console's TLS private key (PEM).
    public var consoleKey: String?
    /// `--concurrency`.
    public var concurrency = PositiveCount(4)
    /// `--log-level`.
    public var logLevel = Logger.Level.info
    /// `--log-format`.
    public var logFormat = LogLine.Format.text
    /// `--aasa-refresh`: how often live association files are checked again.
    public var associationRefresh = RefreshInterval.daily

    /// `--bundle-from`: where bundles are taken from (docs/fleet.md).
    public var bundleFrom: [BundleSource] = []
    /// `--bundle-key`: the public key files a bundle must be signed with.
    public var bundleKeys: [String] = []
    /// `--bundle-poll`: how often the sources are polled; `TAGROUTER_BUNDLE_POLL` or one minute when nil.
    public var bundlePoll: BundlePollInterval?
    /// `--bundle-allow-rollback`: a bundle older than the one in force may be taken.
    public var bundleAllowRollback = false

    /// Options with every default.
    public init() {}
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension LogLine.Format: ExpressibleByArgument {}

extension RouterLauncher {
    /// `tagrouter run`: sets up logging, resolves the defaults and runs the router until SIGTERM or SIGINT.
    /// - Parameter options: the parsed options.
    /// - Returns: the exit status: 0 after a clean shutdown, 1 when the rules or the state directory cannot be
    ///   used.
    /// - Throws: an error from a service that failed (the metrics address could not be bound, …).
    public static func main(_ options: RunOptions) async throws -> Int32 {
        // First of all, before the rules (and their secrets) are loaded: a rule's command runs as the router's
        // user, and could otherwise read the router's /proc/PID/environ and memory.
        let notDumpable = tr_set_not_dumpable()
        let format = options.logFormat
        let level = options.logLevel
        LoggingSystem.bootstrap { _ in LogLine(format: format, level: level) }
        let logger = Logger(label: "tagrouter")
        if notDumpable == 0 {
            logger.debug("process.not_dumpable")
        } else {
            logger.warning(
                "process.not_dumpable_failed: commands of this user can read the router's environment and memory",
                metadata: ["error": "\(String(cString: strerror(-notDumpable)))"])
        }
        let readers = options.readers
        var settings = RouterSettings(
            rulesSources: HostDefaults.rulesSources(options.rules),
            stateDirectory: HostDefaults.stateDirectory(options.stateDirectory),
            acceptsReader: { readers.accepts($0) },
            isDryRun: options.isDryRun,
            metricsAddress: options.metrics.map { (host: $0.host, port: Int($0.port)) },
            concurrency: options.concurrency.value)
        settings.associationRefreshInterval = options.associationRefresh.duration
        settings.console = ConsoleSettings(
            address: options.console.map { (host: $0.host, port: Int($0.port)) },
            certificateFile: options.consoleCertificate, keyFile: options.consoleKey,
            stateDirectory: settings.stateDirectory, tags: ConsoleTagsFile(sources: options.rules),
            ruleTools: ConsoleRules(sources: options.rules, stateDirectory: options.stateDirectory))
        do {
            try BundleSettings.apply(to: &settings, options: options, environment: HostDefaults.environment)
        } catch {
            Terminal.printError("\(error)")
            return 1
        }
        let outcome = try await run(
            settings: settings, environment: HostDefaults.environment, logger: logger,
            printError: Terminal.printError)
        return outcome == .stopped ? 0 : 1
    }
}
