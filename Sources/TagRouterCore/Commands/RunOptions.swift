import Foundation
import Logging
import TagRules

/// What `tagrouter run` is told on its command line (docs/cli.md, "run"), before defaults are resolved.
public struct RunOptions: Sendable {
    /// `--rules`: files and folders; the configured default when empty.
    public var rules: [String] = []
    /// `--state-dir`.
    public var stateDirectory: String?
    /// `--reader` patterns; every reader when empty.
    public var readers: [String] = []
    /// `--dry-run`.
    public var isDryRun = false
    /// `--metrics HOST:PORT`.
    public var metrics: String?
    /// `--concurrency`.
    public var concurrency = 4
    /// `--log-level`.
    public var logLevel = "info"
    /// `--log-format`.
    public var logFormat = "text"
    /// `--aasa-refresh`: how often live association files are checked again (`24h`, `30m`, …).
    public var associationRefresh = "24h"
    /// `--release-idle-pages`: hand the binary's and libraries' clean pages back to the kernel when idle.
    public var releasesIdlePages = false
    /// `--hold-cpus-awake` (the default) or `--no-hold-cpus-awake`: keep idle CPUs polling during each tap.
    public var holdsCPUsAwake = true

    /// Options with every default.
    public init() {}

    /// The log levels `--log-level` takes.
    public static let logLevels = Logger.Level.allCases.map(\.rawValue)

    /// Checks the options before anything runs.
    /// - Throws: ``CommandFailure`` naming the option at fault.
    public func validate() throws(CommandFailure) {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw CommandFailure("--log-level must be one of \(Self.logLevels.joined(separator: ", ")).")
        }
        guard LogLine.Format(rawValue: logFormat) != nil else {
            throw CommandFailure("--log-format must be text or json.")
        }
        guard concurrency >= 1 else { throw CommandFailure("--concurrency must be at least 1.") }
        if let metrics { _ = try Self.address(metrics) }
        _ = try Self.refreshInterval(associationRefresh)
    }

    /// Parses `--aasa-refresh`: a duration of at least one minute.
    /// - Parameter text: the duration as written (`24h`, `90m`).
    /// - Returns: the interval.
    /// - Throws: ``CommandFailure`` when it is not a duration of at least 1m.
    static func refreshInterval(_ text: String) throws(CommandFailure) -> Duration {
        guard let interval = DurationText.parse(text), interval >= .seconds(60) else {
            throw CommandFailure("--aasa-refresh takes a duration of at least 1m, such as 24h or 30m (got '\(text)').")
        }
        return interval
    }

    /// Parses `HOST:PORT` (`[::1]:9090` for IPv6; `:9090` for 127.0.0.1).
    /// - Parameter text: the address.
    /// - Returns: the host and port.
    /// - Throws: ``CommandFailure`` when it is not `HOST:PORT`.
    static func address(_ text: String) throws(CommandFailure) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw CommandFailure("--metrics takes HOST:PORT, such as 127.0.0.1:9464 (got '\(text)').")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }
}

extension RouterLauncher {
    /// `tagrouter run`: sets up logging, resolves the defaults and runs the router until SIGTERM or SIGINT.
    /// - Parameter options: the validated options.
    /// - Returns: the exit status: 0 after a clean shutdown, 1 when the rules or the state directory cannot be
    ///   used.
    /// - Throws: an error from a service that failed (the metrics address could not be bound, …).
    public static func main(_ options: RunOptions) async throws -> Int32 {
        let format = LogLine.Format(rawValue: options.logFormat) ?? .text
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        LoggingSystem.bootstrap { _ in LogLine(format: format, level: level) }
        let patterns = options.readers.map(ReaderPattern.init(text:))
        var settings = RouterSettings(
            rulesSources: HostDefaults.rulesSources(options.rules),
            stateDirectory: HostDefaults.stateDirectory(options.stateDirectory),
            acceptsReader: { name in patterns.isEmpty || patterns.contains { $0.matches(name) } },
            isDryRun: options.isDryRun,
            metricsAddress: try options.metrics.map(RunOptions.address),
            concurrency: options.concurrency)
        settings.associationRefreshInterval = try RunOptions.refreshInterval(options.associationRefresh)
        settings.releasesIdlePages = options.releasesIdlePages
        settings.holdsCPUsAwake = options.holdsCPUsAwake
        let outcome = try await run(
            settings: settings, environment: HostDefaults.environment, logger: Logger(label: "tagrouter"),
            printError: Terminal.printError)
        return outcome == .stopped ? 0 : 1
    }
}
