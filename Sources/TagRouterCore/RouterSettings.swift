public import Console
public import FleetBundle

/// Everything `tagrouter run` can be told.
public struct RouterSettings: Sendable {
    /// Rule files and folders, in order.
    public var rulesSources: [String]
    /// The state directory (tap history, webhook outbox).
    public var stateDirectory: String
    /// Only readers for which this returns `true` are used.
    public var acceptsReader: @Sendable (String) -> Bool
    /// Log what would be done, do nothing.
    public var isDryRun: Bool
    /// Where to serve `/metrics`, if anywhere.
    public var metricsAddress: (host: String, port: Int)?
    /// The web console (`--console`; docs/console.md), if any.
    public var console: ConsoleSettings?
    /// How many commands may run at once.
    public var concurrency: Int
    /// The graceful-shutdown budget of the whole service group: taps in progress, the outbox worker and the
    /// other services may take this long to stop before they are cancelled (commands are then killed).
    public var gracePeriod: Duration
    /// How long a live association file is used before it is checked again (`--aasa-refresh`; docs/rules.md,
    /// "Live association files").
    public var associationRefreshInterval: Duration = AssociationRefresher.defaultInterval
    /// Where bundles are taken from (`--bundle-from`; docs/fleet.md, "Sources"); none: the host runs its
    /// `--rules` alone.
    public var bundleSources: [BundleSource] = []
    /// The public keys a bundle must be signed with (`--bundle-key`).
    public var bundleKeys: [BundlePublicKey] = []
    /// How often the sources are polled (`--bundle-poll`).
    public var bundlePoll: Duration = .seconds(60)
    /// A PEM file of certificates trusted for the sources besides the system's (`TAGROUTER_BUNDLE_CA`).
    public var bundleTrustAnchors: String?

    /// Whether a bundle older than the one in force may be taken (`--bundle-allow-rollback`,
    /// `TAGROUTER_BUNDLE_ALLOW_ROLLBACK=1`; docs/fleet.md, "Rollback").
    public var bundleAllowsRollback = false
    /// The credentials MQTT bundle sources connect with (`TAGROUTER_BUNDLE_MQTT_USERNAME`, `…_PASSWORD`).
    public var bundleCredentials = BundleSource.Credentials()
    /// Whether the host takes bundles: it has sources, or trusts a key (and then runs the bundle it kept).
    public var takesBundles: Bool { !bundleSources.isEmpty || !bundleKeys.isEmpty }

    /// Creates settings.
    /// - Parameters:
    ///   - rulesSources: rule files and folders.
    ///   - stateDirectory: the state directory.
    ///   - acceptsReader: the reader filter; every reader by default.
    ///   - isDryRun: dry-run mode.
    ///   - metricsAddress: the metrics address, if any.
    ///   - concurrency: the command concurrency (default 4: docs/cli.md, "tagrouter run").
    ///   - gracePeriod: the graceful-shutdown budget; 3 s by default, so the whole exit stays under 5 s.
    public init(
        rulesSources: [String],
        stateDirectory: String,
        acceptsReader: @escaping @Sendable (String) -> Bool = { _ in true },
        isDryRun: Bool = false,
        metricsAddress: (host: String, port: Int)? = nil,
        concurrency: Int = 4,
        gracePeriod: Duration = .seconds(3)
    ) {
        self.rulesSources = rulesSources
        self.stateDirectory = stateDirectory
        self.acceptsReader = acceptsReader
        self.isDryRun = isDryRun
        self.metricsAddress = metricsAddress
        self.concurrency = concurrency
        self.gracePeriod = gracePeriod
    }
}
