import ArgumentParser
import Foundation
import Logging
import TagActions
import TagRouterCore
import TagRules

/// `tagrouter run`: the router daemon.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Watch every reader and route each tag presented to its rule's actions.",
        discussion: """
            Loads the rules (exit 1 with the diagnostics if they are invalid), then watches the readers until \
            SIGTERM or SIGINT: each presentation is read once, matched against the rules, and the first matching \
            rule's actions run (and those of the rules it continues to). SIGHUP, or a change to a rules file, \
            reloads the rules; invalid rules keep the previous ones running. Exit status: 0 after a clean \
            shutdown, 1 when the rules or the state directory cannot be used.
            """)

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Rules files or folders (default: $TAGROUTER_RULES, /etc/tagrouter/rules as root, else "
                + "~/.config/tagrouter/rules).", valueName: "sources"))
    var rules: [String] = []

    @Option(
        help: ArgumentHelp(
            "State directory: tap history and webhook outbox (default: /var/lib/tagrouter as root, else "
                + "$XDG_STATE_HOME/tagrouter or ~/.local/state/tagrouter).", valueName: "dir"))
    var stateDir: String?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Use only readers whose name contains this text or matches it with * and ? (repeatable).",
            valueName: "pattern"))
    var reader: [String] = []

    @Flag(help: "Log what would be done for each tap, and do nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://HOST:PORT/metrics.", valueName: "host:port"))
    var metrics: String?

    @Option(help: "How many commands may run at once; further ones queue, and are dropped when the queue is full.")
    var concurrency = 4

    @Option(help: "Lowest level logged: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Log format: text (one readable line) or json (one object per line, for journald or Loki).")
    var logFormat: String = "text"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        guard LogLine.Format(rawValue: logFormat) != nil else {
            throw ValidationError("--log-format must be text or json.")
        }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1.") }
        if let metrics { _ = try Self.address(metrics) }
    }

    /// Parses `HOST:PORT` (`[::1]:9090` for IPv6).
    static func address(_ text: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw ValidationError("--metrics takes HOST:PORT, such as 127.0.0.1:9464 (got '\(text)').")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    func run() async throws {
        let format = LogLine.Format(rawValue: logFormat) ?? .text
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { _ in LogLine(format: format, level: level) }
        let logger = Logger(label: "tagrouter")
        let environment = ProcessInfo.processInfo.environment
        let isRoot = geteuid() == 0
        let patterns = reader.map(ReaderPattern.init(text:))
        let settings = RouterSettings(
            rulesSources: rules.isEmpty ? [DefaultRulesPath.resolve(environment: environment, isRoot: isRoot)] : rules,
            stateDirectory: stateDir ?? StateDirectory.defaultPath(environment: environment, isRoot: isRoot),
            acceptsReader: { name in patterns.isEmpty || patterns.contains { $0.matches(name) } },
            isDryRun: dryRun,
            metricsAddress: try metrics.map(Self.address),
            concurrency: concurrency)
        let outcome = try await RouterLauncher.run(
            settings: settings, environment: environment, logger: logger,
            printError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
        if outcome != .stopped { throw ExitCode(1) }
    }
}
