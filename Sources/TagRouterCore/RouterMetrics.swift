public import CoreMetrics
import TagActions
import TagRules

/// The router's metrics (docs/operations.md, "Metrics"), created from one factory so tests can read them from their own
/// registry without touching the global `MetricsSystem`.
public struct RouterMetrics: Sendable {
    let factory: any MetricsFactory
    /// Presentations read (every tap that reached the reader, whatever came of it).
    let taps: Counter
    /// Taps that matched a rule and dispatched.
    let matched: Counter
    /// Taps that matched no rule.
    let ignored: Counter
    /// Taps suppressed by cooldown.
    let suppressed: Counter
    /// Readers currently present.
    let readersPresent: Gauge
    /// Whether the MQTT broker is connected (1) or not (0); only with an `mqtt:` block.
    let mqttConnected: Gauge
    /// Time from the reader event to the start of the dispatch (the tap line's `latency_ms`).
    let tapToDispatch: Timer
    /// Corrupt state databases moved aside at start for a fresh one (0 or 1 per run; docs/operations.md,
    /// "A corrupt state database").
    let stateDatabaseRecoveries: Counter

    /// Creates the metrics.
    /// - Parameter factory: where the metrics are registered, such as a `PrometheusMetricsFactory`.
    public init(factory: any MetricsFactory) {
        self.factory = factory
        taps = Counter(label: "tagrouter_taps_total", factory: factory)
        matched = Counter(label: "tagrouter_matched_total", factory: factory)
        ignored = Counter(label: "tagrouter_ignored_total", factory: factory)
        suppressed = Counter(label: "tagrouter_suppressed_total", factory: factory)
        readersPresent = Gauge(label: "tagrouter_readers_present", factory: factory)
        mqttConnected = Gauge(label: "tagrouter_mqtt_connected", factory: factory)
        tapToDispatch = Timer(
            label: "tagrouter_tap_to_dispatch_seconds", preferredDisplayUnit: .seconds, factory: factory)
        stateDatabaseRecoveries = Counter(label: "tagrouter_state_database_recovered_total", factory: factory)
    }

    /// Records how many deliveries of a kind wait in the outbox (`tagrouter_outbox_depth{kind=…}`).
    /// - Parameters:
    ///   - kind: `webhook` or `mqtt`.
    ///   - depth: the number pending.
    func outboxDepth(kind: String, _ depth: Int) {
        Gauge(label: "tagrouter_outbox_depth", dimensions: [("kind", kind)], factory: factory).record(depth)
    }

    /// Counts a live-feed event dropped for a slow console browser (`tagrouter_console_dropped_total`;
    /// docs/console.md, "Live").
    func consoleDropped() {
        Counter(label: "tagrouter_console_dropped_total", factory: factory).increment()
    }

    /// Counts a corrupt state database moved aside for a fresh one (`tagrouter_state_database_recovered_total`).
    func stateDatabaseRecovered() {
        stateDatabaseRecoveries.increment()
    }

    /// Counts a failed read by its kind.
    /// - Parameter kind: the kind of failure.
    func readError(_ kind: ReadFailure.Kind) {
        Counter(label: "tagrouter_read_errors_total", dimensions: [("kind", kind.rawValue)], factory: factory)
            .increment()
    }

    /// Counts an action by kind and outcome (``ActionOutcome/Label``).
    /// - Parameter outcome: what came of the action.
    func action(_ outcome: ActionOutcome) {
        action(kind: outcome.kind.rawValue, outcome: outcome.label.rawValue)
    }

    /// Counts an event of a followed presentation by kind (`tagrouter_presentation_events_total{kind=…}`:
    /// `removed`, `held`, `returned`).
    /// - Parameter kind: the event.
    func presentationEvent(_ kind: String) {
        Counter(label: "tagrouter_presentation_events_total", dimensions: [("kind", kind)], factory: factory)
            .increment()
    }

    /// Counts a door rule's refusal by its reason (`tagrouter_denied_total{reason}`).
    /// - Parameter reason: why the rule refused the tag.
    func denied(_ reason: DenialReason) {
        Counter(label: "tagrouter_denied_total", dimensions: [("reason", reason.rawValue)], factory: factory)
            .increment()
    }

    /// Counts a reader locked out by a rule's `lockout:` (`tagrouter_lockouts_total{rule}`; docs/doors.md,
    /// "Lockout"). Its refusals meanwhile count in `tagrouter_denied_total{reason="locked-out"}`.
    /// - Parameter rule: the rule whose refusals locked the reader.
    func lockedOut(rule: String) {
        Counter(label: "tagrouter_lockouts_total", dimensions: [("rule", rule)], factory: factory).increment()
    }

    /// Records the version of the bundle in force (`tagrouter_bundle_version`; docs/fleet.md).
    /// - Parameter version: the version.
    func bundleVersion(_ version: Int) {
        Gauge(label: "tagrouter_bundle_version", factory: factory).record(version)
    }

    /// Counts a bundle refused by its reason (`tagrouter_bundle_refused_total{reason}`; docs/fleet.md).
    /// - Parameter reason: the refusal's reason.
    func bundleRefused(_ reason: String) {
        Counter(label: "tagrouter_bundle_refused_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Counts a rule whose templates failed to render: kind `render`, outcome `failed`.
    func renderFailed() {
        action(kind: "render", outcome: ActionOutcome.Label.failed.rawValue)
    }

    private func action(kind: String, outcome: String) {
        Counter(
            label: "tagrouter_actions_total", dimensions: [("kind", kind), ("outcome", outcome)], factory: factory
        ).increment()
    }
}
