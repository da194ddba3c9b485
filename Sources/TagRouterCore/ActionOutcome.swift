/// What came of one action of a dispatched rule, for the tap's log line, the history and the metrics.
public struct ActionOutcome: Sendable, Hashable {
    /// `run`, `open` or `webhook`.
    public var kind: String
    /// `ok`, `failed`, `dropped`, `queued` (a webhook in the outbox) or `dry-run`.
    public var outcome: String
    /// Details: the exit status, the error sentence, the outbox delivery id.
    public var detail: String?

    /// Whether the action failed or was dropped.
    public var isFailure: Bool { outcome == "failed" || outcome == "dropped" }

    /// Creates an outcome.
    /// - Parameters:
    ///   - kind: the action kind.
    ///   - outcome: what came of it.
    ///   - detail: details, if any.
    public init(kind: String, outcome: String, detail: String? = nil) {
        self.kind = kind
        self.outcome = outcome
        self.detail = detail
    }
}
