import ArgumentParser
import RouterCommands
import TagRouterCore

/// `tagrouter run`: the router daemon.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch every reader and route each tag presented to its rule's actions.",
        discussion: """
            Loads the rules (exit 1 with the diagnostics if they are invalid), then watches the readers until \
            SIGTERM or SIGINT: each presentation is read once, matched against the rules, and the first matching \
            rule's actions run (and those of the rules it continues to). SIGHUP, or a change to a rules file, \
            reloads the rules; invalid rules keep the previous ones running. SIGHUP also refreshes the live \
            association files (aasa: { domain: … }) at once. Live association files are fetched in the background over HTTPS; TAGROUTER_AASA_CA=FILE adds \
            trusted certificates (PEM) for a private CA. ${NAME} in the rules is the systemd credential \
            $CREDENTIALS_DIRECTORY/NAME when there is one, else the environment variable NAME; the router makes \
            itself non-dumpable first, so that its commands cannot read its environment or memory. Exit status: 0 \
            after a clean shutdown, 1 when the rules or the state directory cannot be used.
            """)

    @OptionGroup var rules: RulesOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var readers: ReaderOptions

    @Flag(help: "Log what would be done for each tap, and do nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://HOST:PORT/metrics.", valueName: "host:port"))
    var metrics: HostAndPort?

    @Option(
        help: ArgumentHelp(
            "Serve the web console at http://HOST:PORT (docs/console.md): loopback unless --console-certificate and "
                + "--console-key are given. tagrouter console-login prints a sign-in link.", valueName: "host:port"))
    var console: HostAndPort?

    @Option(help: ArgumentHelp("The console's TLS certificate chain (PEM).", valueName: "file"))
    var consoleCertificate: String?

    @Option(help: ArgumentHelp("The console's TLS private key (PEM).", valueName: "file"))
    var consoleKey: String?

    @Option(help: "How many commands may run at once; further ones queue, and are dropped when the queue is full.")
    var concurrency = PositiveCount(4)

    @Option(help: "Lowest level logged.")
    var logLevel = RunOptions().logLevel

    @Option(help: "Log format: text (one readable line) or json (one object per line, for journald or Loki).")
    var logFormat = RunOptions().logFormat

    @Option(
        help: ArgumentHelp(
            "How often live association files (aasa: { domain: … }) are checked again: 24h, 30m, … (at least 1m).",
            valueName: "duration"))
    var aasaRefresh = RefreshInterval.daily

    @Option(
        help: ArgumentHelp(
            "Take signed bundles of rules from this URL (https://, http:// to loopback, or mqtt:// / mqtts:// with the "
                + "topic as the path; repeatable). --rules is "
                + "then the host's local overlay (default: $TAGROUTER_BUNDLE_FROM).", valueName: "url"),
        transform: BundleURL.parse)
    var bundleFrom: [BundleURL] = []

    @Option(
        help: ArgumentHelp(
            "A public key file (from bundle keygen) a bundle may be signed with (repeatable; default: "
                + "$TAGROUTER_BUNDLE_KEY).", valueName: "file"))
    var bundleKey: [String] = []

    @Option(
        help: ArgumentHelp(
            "How often the bundle sources are polled: 60s, 5m, … (at least 1s; default: $TAGROUTER_BUNDLE_POLL or "
                + "60s). SIGHUP polls at once.", valueName: "duration"))
    var bundlePoll: BundlePollInterval?

    @Flag(
        help: ArgumentHelp(
            "Take a bundle even when it is older than the one in force (a rollback; default: "
                + "$TAGROUTER_BUNDLE_ALLOW_ROLLBACK=1, else refused as older)."))
    var bundleAllowRollback = false

    private var options: RunOptions {
        var options = RunOptions()
        options.rules = rules.rules
        options.stateDirectory = state.stateDir
        options.readers = readers.filter
        options.isDryRun = dryRun
        options.metrics = metrics
        options.console = console
        options.consoleCertificate = consoleCertificate
        options.consoleKey = consoleKey
        options.concurrency = concurrency
        options.logLevel = logLevel
        options.logFormat = logFormat
        options.associationRefresh = aasaRefresh
        options.bundleFrom = bundleFrom.map(\.source)
        options.bundleKeys = bundleKey
        options.bundlePoll = bundlePoll
        options.bundleAllowRollback = bundleAllowRollback
        return options
    }

    func run() async throws {
        let status = try await RouterLauncher.main(options)
        if status != 0 { throw ExitCode(status) }
    }
}
