public import TagRules

/// Something that carries out a rendered action: ``ActionExecutor`` for real, a recording fake in tests.
public protocol ActionPerforming: Sendable {
    /// Carries out one rendered action.
    /// - Parameters:
    ///   - action: the action, placeholders filled in.
    ///   - rule: the name of the rule it comes from.
    ///   - document: the event document (`TAG_EVENT_JSON`, the default webhook body).
    /// - Returns: what came of it; failures are outcomes, never thrown.
    func perform(_ action: RenderedAction, rule: String, document: EventDocument) async -> ActionOutcome
}
