public import Foundation
public import TagActions
public import TagRules

/// How one tap ended. The tap's log line, its metrics and its history row are derived from this one value
/// (``TapReporter``).
public enum TapOutcome: Sendable {
    /// The tag could not be read.
    case readFailed(reader: String, ReadFailure)
    /// The tag's NDEF message is invalid.
    case invalidNDEF(TagSummary, ReadFailure)
    /// No rule matched.
    case ignored(TagSummary)
    /// Rules matched, but the same tag dispatched on this reader less than the cooldown ago.
    case suppressed(TagSummary, rules: [String], since: Duration)
    /// Rules matched, but the presentation ended or was settled before the read finished: nothing is done.
    case superseded(TagSummary, rules: [String])
    /// Rules matched and their actions were carried out: for a tap, or for a later event of its presentation
    /// (``Dispatch/event``).
    case dispatched(TagSummary, Dispatch)
    /// The tag came back within the grace of its presentation's `removed`: the presentation goes on, nothing is
    /// done.
    case continued(TagSummary, rules: [String], presentationID: String)
    /// A door rule refused the tag and no rule decided (docs/doors.md, "Refusals"): its `denied:` actions, and
    /// those of the `continue: true` rules that matched, were carried out.
    case denied(TagSummary, rule: String, reason: DenialReason, Dispatch)
    /// `tagrouter learn` holds the reader to enroll the tag: nothing is done.
    case heldByLearn(TagSummary)
}

extension TapOutcome {
    /// Whether this is a later event of a presentation (`removed`, `held`), not a tag put on a reader.
    public var isLaterEvent: Bool {
        if case .dispatched(_, let dispatch) = self { return dispatch.isLaterEvent }
        return false
    }
}

/// The actions carried out for one tap.
public struct Dispatch: Sendable {
    /// The event id shared by every action of the tap.
    public var eventID: String
    /// The tap time (the event document's `time`).
    public var time: Date
    /// Each matched rule and what came of its actions, in rule order.
    public var rules: [RuleDispatch]
    /// From the reader's event to the start of the dispatch.
    public var latency: Duration
    /// How long the tag's commands took.
    public var readTime: Duration
    /// The event of the presentation: `tap`, or `returned`, `removed`, `held` (docs/rules.md, "Tags that stay on
    /// the reader").
    public var event: PresentationEventKind = .tap
    /// The presentation's id when it is followed or returned; `nil` for a plain tap (its id is ``eventID``).
    public var presentationID: String?
    /// For `removed` and `held`: how long the tag had been on the reader.
    public var presentedFor: Duration?

    /// Creates a dispatch.
    /// - Parameters:
    ///   - eventID: the event id.
    ///   - time: the event time.
    ///   - rules: what came of each rule.
    ///   - latency: from the reader's event to the dispatch.
    ///   - readTime: how long the tag's commands took.
    public init(eventID: String, time: Date, rules: [RuleDispatch], latency: Duration, readTime: Duration) {
        self.eventID = eventID
        self.time = time
        self.rules = rules
        self.latency = latency
        self.readTime = readTime
    }

    /// Whether this is a later event (`removed`, `held`), not a tag put on a reader.
    public var isLaterEvent: Bool { event == .removed || event == .held }

    /// Every action's outcome, in rule order then action order.
    public var outcomes: [ActionOutcome] { rules.flatMap(\.outcomes) }

    /// Whether an action failed, was dropped, or a rule's templates failed to render.
    public var hasFailure: Bool { rules.contains(where: \.hasFailure) }
}

/// One matched rule's part of a dispatch.
public struct RuleDispatch: Sendable {
    /// What came of the rule.
    public enum Result: Sendable {
        /// The actions were carried out (or, in a dry run, logged).
        case performed([ActionOutcome])
        /// A placeholder could not be filled in; no action ran.
        case renderFailed(String)
    }

    /// The rule name.
    public var rule: String
    /// What came of it.
    public var result: Result

    /// The action outcomes; none when rendering failed.
    public var outcomes: [ActionOutcome] {
        if case .performed(let outcomes) = result { return outcomes }
        return []
    }

    /// Whether an action failed or rendering did.
    public var hasFailure: Bool {
        switch result {
        case .performed(let outcomes): outcomes.contains(where: \.isFailure)
        case .renderFailed: true
        }
    }

    /// `run ok (exit 0)` per action, or `render failed (…)`.
    public var summaries: [String] {
        switch result {
        case .performed(let outcomes): outcomes.map(\.summary)
        case .renderFailed(let error): ["render failed (\(error))"]
        }
    }
}
