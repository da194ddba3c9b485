/// The events of one presentation of a tag: the tap that starts it, and what a rule's `on:` block adds
/// (docs/rules.md, "Tags that stay on the reader").
public enum PresentationEventKind: String, Sendable, Hashable, CaseIterable, Encodable {
    /// The tag was presented and read: the rule's own actions.
    case tap
    /// The presentation that dispatched ended (the tag was taken away) and the grace passed.
    case removed
    /// The tag has stayed on the reader for the rule's `for`.
    case held
    /// The same tag came back to the same reader within the rule's `within` after a `removed`.
    case returned
    /// A door rule refused the tag: its `denied:` actions (docs/doors.md, "Refusals"). Not a presentation's event
    /// of its own, but the `{event}` of a refusal, so that what reads the event document tells it from a tap.
    case denied

    /// The events an `on:` block may have, in the order they are written and shown.
    public static let later: [PresentationEventKind] = [.removed, .held, .returned]

    /// The key of the event's timing in an `on:` block: `after`, `for`, `within`; nil for `tap`.
    public var timingKey: String? {
        switch self {
        case .tap, .denied: nil
        case .removed: "after"
        case .held: "for"
        case .returned: "within"
        }
    }
}

/// Where an event stands in its presentation: the values of `{event}`, `{presentation_id}` and
/// `{presented_for_ms}`, and the same fields of the event document.
public struct PresentationContext: Sendable, Hashable {
    /// The event.
    public var kind: PresentationEventKind
    /// Shared by every event of one presentation (a tag put back within `returned`'s window continues it): the
    /// event id of its tap.
    public var presentationID: String
    /// How long the tag had been on the reader when the event happened (for `removed`, when it was taken away).
    public var presentedFor: Duration

    /// Creates a context.
    /// - Parameters:
    ///   - kind: the event.
    ///   - presentationID: the presentation's id.
    ///   - presentedFor: how long the tag had been on the reader.
    public init(kind: PresentationEventKind, presentationID: String, presentedFor: Duration) {
        self.kind = kind
        self.presentationID = presentationID
        self.presentedFor = presentedFor
    }

    /// `presentedFor` in whole milliseconds.
    public var presentedForMilliseconds: Int64 {
        let (seconds, attoseconds) = presentedFor.components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}

/// A rule's `on:` block: the later events of a presentation the rule reacts to.
public struct PresentationEvents: Sendable {
    /// One event's timing and actions.
    public struct Event: Sendable {
        /// `removed`: the grace (`after`); `held`: how long (`for`); `returned`: the window (`within`).
        public var timing: Duration
        /// The actions, in order.
        public var actions: [Action]
        /// Where the event is written.
        public var location: SourceLocation
    }

    /// `removed`, if the rule has it.
    public var removed: Event?
    /// `held`, if the rule has it.
    public var held: Event?
    /// `returned`, if the rule has it.
    public var returned: Event?

    /// No `on:` block: the rule fires on the tap alone, as control cards should.
    public var isEmpty: Bool { removed == nil && held == nil && returned == nil }

    /// The kinds the rule reacts to, `tap` first.
    public var kinds: [PresentationEventKind] {
        [.tap] + PresentationEventKind.later.filter { self[$0] != nil }
    }

    /// The event of a later kind (`removed`, `held`, `returned`); nil for `tap` and `denied`.
    public subscript(kind: PresentationEventKind) -> Event? {
        get {
            switch kind {
            case .tap, .denied: nil
            case .removed: removed
            case .held: held
            case .returned: returned
            }
        }
        set {
            switch kind {
            case .tap, .denied: break
            case .removed: removed = newValue
            case .held: held = newValue
            case .returned: returned = newValue
            }
        }
    }
}
