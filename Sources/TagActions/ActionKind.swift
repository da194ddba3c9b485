/// The kinds of action a rule can carry (docs/rules.md, "Actions").
public enum ActionKind: String, Sendable, Hashable, CaseIterable {
    /// A command, executed directly from an argument vector.
    case run
    /// A URI handed to the desktop's URL opener.
    case open
    /// An HTTP request, delivered at least once through the outbox.
    case webhook
    /// An MQTT publication (QoS 1 delivered at least once through the outbox).
    case mqtt
    /// Text typed into the focused window of the desktop session.
    case type
}
