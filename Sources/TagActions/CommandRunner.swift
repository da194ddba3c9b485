public import Foundation
public import Logging
import WebhookRetry

/// Runs `run` actions: argv executed directly (never a shell), a minimal environment (never the router's whole
/// one: it may hold tokens), a timeout enforced, output captured up to a bound, at most `concurrency` commands at
/// once with a bounded queue.
///
/// A command's environment is `PATH`, `HOME`, `LANG`, `LC_*` and `TZ` from the router's, the desktop session's
/// variables for the URL opener only (``CommandAction/usesDesktopSession``), the `TAG_*` variables, and the
/// rule's own `env` on top (docs/rules.md, "The environment of commands").
///
/// A timed-out command gets SIGTERM, then SIGKILL 2 s later, sent to its whole process group (each command runs
/// in its own session), and is always reaped before ``run(_:event:)`` returns.
public struct CommandRunner: Sendable {
    /// Default bound on captured stdout and on captured stderr, each.
    public static let defaultOutputLimit = 4096

    let limiter: ConcurrencyLimiter
    let outputLimit: Int
    let killGrace: Duration
    let logger: Logger
    /// What every command inherits from the router's environment.
    let inherited: [String: String]
    /// What the URL opener also inherits: the desktop session's variables.
    let desktopSession: [String: String]

    /// The variables every command inherits (with every `LC_*`).
    public static let inheritedNames: Set<String> = ["PATH", "HOME", "LANG", "TZ"]
    /// The desktop session's variables, which the URL opener (and the browser it starts) also inherits.
    public static let desktopSessionNames: Set<String> = [
        "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "XDG_ACTIVATION_TOKEN",
    ]

    /// Creates a runner.
    /// - Parameters:
    ///   - concurrency: how many commands may run at once (`tagrouter run --concurrency`, default 4).
    ///   - queueLimit: how many may wait for a slot; further ones are dropped with an error log.
    ///   - outputLimit: how many bytes of stdout and of stderr to keep; the rest is read and discarded.
    ///   - killGrace: time between SIGTERM and SIGKILL after a timeout (2 s: docs/rules.md, "`run`: commands").
    ///   - environment: the router's environment, of which commands get only ``inheritedNames`` and `LC_*` (and
    ///     the opener ``desktopSessionNames``).
    ///   - logger: where results are logged.
    public init(
        concurrency: Int = 4,
        queueLimit: Int = 64,
        outputLimit: Int = CommandRunner.defaultOutputLimit,
        killGrace: Duration = .seconds(2),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger
    ) {
        self.limiter = ConcurrencyLimiter(limit: concurrency, queueLimit: queueLimit)
        self.outputLimit = max(0, outputLimit)
        self.killGrace = killGrace
        self.logger = logger
        var inherited = environment.filter { Self.inheritedNames.contains($0.key) || $0.key.hasPrefix("LC_") }
        if inherited["PATH"] == nil { inherited["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        self.inherited = inherited
        self.desktopSession = environment.filter { Self.desktopSessionNames.contains($0.key) }
    }

    /// How many commands were dropped because the queue was full, since the runner was created.
    public var droppedCount: Int { limiter.droppedCount }

    /// How many commands are running right now.
    public var runningCount: Int { limiter.runningCount }

    /// Runs one command to completion (or to its timeout) and logs the result.
    /// - Parameters:
    ///   - action: the rendered command.
    ///   - event: the event, for `TAG_*` and `TAG_EVENT_JSON`; `nil` runs without them.
    /// - Returns: how the command ended; a non-zero exit is a result.
    /// - Throws: ``ActionError`` (`invalidCommand`, `launchFailed`, `queueFull`), or `CancellationError` when the
    ///   task was cancelled while waiting for a slot.
    @discardableResult
    public func run(_ action: CommandAction, event: EventDocument? = nil) async throws -> CommandResult {
        // A command waits (for a place, for the process, for its output) on Swift's global executor, never on a
        // thread the caller prefers: the router's taps run on its card thread, which must stay free for reads.
        try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try await runOnGlobalExecutor(action, event: event)
        }
    }

    private func runOnGlobalExecutor(_ action: CommandAction, event: EventDocument?) async throws -> CommandResult {
        try action.validate()
        let program = action.argv[0]
        var logger = self.logger
        logger[metadataKey: "action.kind"] = "run"
        logger[metadataKey: "action.program"] = "\(program)"
        if let event {
            logger[metadataKey: "rule.name"] = "\(event.rule)"
            logger[metadataKey: "event.id"] = "\(event.id)"
        }
        guard try await limiter.acquire() else {
            logger.error(
                "command dropped: queue full",
                metadata: [
                    "action.dropped_total": "\(limiter.droppedCount)", "action.queue_limit": "\(limiter.queueLimit)",
                ]
            )
            throw ActionError(
                .queueFull,
                "command '\(program)' dropped: \(limiter.limit) running and \(limiter.queueLimit) queued"
            )
        }
        defer { limiter.release() }
        let environment = environment(for: action, event: event)
        do {
            let result = try await execute(action, environment: environment)
            log(result, logger: logger)
            return result
        } catch let error as ActionError {
            logger.error("command failed to start", metadata: ["error": "\(error)"])
            throw error
        }
    }

    func log(_ result: CommandResult, logger: Logger) {
        var metadata: Logger.Metadata = ["action.duration_ms": "\(result.duration.milliseconds)"]
        switch result.termination {
        case .exited(let status): metadata["action.exit_code"] = "\(status)"
        case .signaled(let signal): metadata["action.signal"] = "\(signal)"
        }
        if !result.standardOutput.isEmpty {
            metadata["action.stdout"] = "\(String(decoding: result.standardOutput, as: UTF8.self))"
        }
        if !result.standardError.isEmpty {
            metadata["action.stderr"] = "\(String(decoding: result.standardError, as: UTF8.self))"
        }
        if result.timedOut {
            logger.error("command timed out", metadata: metadata)
        } else if result.isSuccess {
            logger.debug("command finished", metadata: metadata)
        } else {
            logger.warning("command failed", metadata: metadata)
        }
    }
}
