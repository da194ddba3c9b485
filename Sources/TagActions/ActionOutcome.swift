/// What came of one action of a dispatched rule: the one value the tap's log line, the history and the metrics
/// are derived from.
public struct ActionOutcome: Sendable, Hashable {
    /// What came of an action.
    public enum Result: Sendable, Hashable {
        /// A command (`run`, `open`) ran to its end: success is exit status 0 within its timeout.
        case finished(CommandResult.Termination, timedOut: Bool)
        /// A webhook is in the durable outbox under this delivery id; the outbox worker delivers it.
        case queued(delivery: Int64)
        /// A QoS 0 MQTT publication was handed to the connected broker (fire and forget).
        case published
        /// Not carried out: the command queue was full.
        case dropped(reason: String)
        /// Could not be carried out: the sentence says why.
        case failed(reason: String)
        /// Not carried out because the user did not confirm it (an `open` that asks first): not a failure.
        case declined(reason: String)
        /// Dry run: logged, not carried out.
        case dryRun
    }

    /// The action's kind.
    public var kind: ActionKind
    /// What came of it.
    public var result: Result

    /// Creates an outcome.
    /// - Parameters:
    ///   - kind: the action's kind.
    ///   - result: what came of it.
    public init(kind: ActionKind, result: Result) {
        self.kind = kind
        self.result = result
    }

    /// The outcome's name, the same in the tap's log line, the history and the `outcome` label of
    /// `tagrouter_actions_total` (docs/operations.md, "Metrics").
    public var label: Label {
        switch result {
        case .finished(let termination, let timedOut): termination == .exited(0) && !timedOut ? .ok : .failed
        case .queued: .queued
        case .published: .published
        case .dropped: .dropped
        case .failed: .failed
        case .declined: .declined
        case .dryRun: .dryRun
        }
    }

    /// Details for the log line and the history: the exit status, the outbox delivery, the error sentence.
    public var detail: String? {
        switch result {
        case .finished(let termination, let timedOut):
            let status =
                switch termination {
                case .exited(let code): "exit \(code)"
                case .signaled(let signal): "signal \(signal)"
                }
            return timedOut ? "\(status) (timed out)" : status
        case .queued(let delivery): return "delivery \(delivery)"
        case .dropped(let reason), .failed(let reason), .declined(let reason): return reason
        case .published, .dryRun: return nil
        }
    }

    /// Whether the action failed or was dropped.
    public var isFailure: Bool { label == .failed || label == .dropped }

    /// `run ok (exit 0)`, `webhook queued (delivery 12)`: how the tap's log line and the history show it.
    public var summary: String {
        "\(kind.rawValue) \(label.rawValue)" + (detail.map { " (\($0))" } ?? "")
    }
}

extension ActionOutcome {
    /// The names of outcomes.
    public enum Label: String, Sendable, Hashable, CaseIterable {
        /// The command exited 0 within its timeout.
        case ok
        /// The action could not be carried out, or its command failed or timed out.
        case failed
        /// The command queue was full.
        case dropped
        /// The webhook or QoS 1 MQTT publication is in the outbox.
        case queued
        /// The QoS 0 MQTT publication was handed to the broker.
        case published
        /// Dry run.
        case dryRun = "dry-run"
        /// An `open` the user did not confirm (docs/rules.md, "Confirmation before open").
        case declined
    }
}
