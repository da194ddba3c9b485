public import Foundation
public import Logging
import NDEF
import StateStore
import Synchronization
public import TagActions
public import TagRules

/// Renders the actions of every matched rule for a tap and has them carried out: the actions of one rule in the
/// order they are written, each once the one before it is done (a command has exited or been killed at its
/// timeout, a webhook is queued in the durable outbox, the opener has returned), and the rules of one tap side
/// by side (docs/rules.md, "Order and fan-out").
public struct Dispatcher: Sendable {
    /// What to do with rendered actions.
    public enum Mode: Sendable {
        /// Carry them out.
        case perform(any ActionPerforming)
        /// Log what would be done (secrets masked) and do nothing.
        case dryRun
    }

    let mode: Mode
    let logger: Logger
    /// Asks before an `open` of a tag its rule does not trust (docs/rules.md, "Confirmation before open"); nil:
    /// such an `open` does not happen.
    let confirmer: (any OpenConfirming)?
    /// Whether the router already logged that it cannot ask (it says so once, until asking works again).
    private let toldCannotAsk = OnceFlag()

    /// Creates a dispatcher.
    /// - Parameters:
    ///   - mode: carry actions out, or only log them.
    ///   - logger: where render failures and dry-run actions are logged.
    ///   - confirmer: asks before an untrusted tag's `open`; nil: such an `open` does not happen.
    public init(mode: Mode, logger: Logger, confirmer: (any OpenConfirming)? = nil) {
        self.mode = mode
        self.logger = logger
        self.confirmer = confirmer
    }

    /// Carries out the actions of `rules` for one event of a presentation, a tap or a later one: each rule's tap
    /// actions, or those of its `on:` event (docs/rules.md, "Tags that stay on the reader").
    /// - Parameters:
    ///   - rules: each rule, with the event whose actions it runs (`nil`: the tap).
    ///   - tag: the tag as its tap read it.
    ///   - eventID: the event id shared by every action.
    ///   - time: the event time.
    /// - Returns: each rule's outcomes, in rule order.
    public func dispatch(
        _ rules: [(Rule, PresentationContext?)], of tag: ReadTag, eventID: String, time: Date
    ) async -> [RuleDispatch] {
        let base = Self.document(of: tag, eventID: eventID, time: time)
        return await rules.concurrentMap { rule, presentation in
            var document = base
            document.rule = rule.name
            if let presentation {
                document.event = presentation.kind
                document.presentationID = presentation.presentationID
                document.presentedForMilliseconds = presentation.presentedForMilliseconds
            }
            return await dispatch(rule, event: tag.event, document: document, presentation: presentation)
        }
    }

    /// Carries out a door rule's `denied:` actions for a tag it refused (docs/doors.md, "Refusals").
    /// - Parameters:
    ///   - refusal: the rule and why it refused.
    ///   - tag: the tag.
    ///   - eventID: the event id.
    ///   - time: the event time.
    /// - Returns: what came of the actions (none when the rule has no `denied:` block).
    public func dispatch(_ refusal: Refusal, of tag: ReadTag, eventID: String, time: Date) async -> RuleDispatch {
        var document = Self.document(of: tag, eventID: eventID, time: time)
        document.rule = refusal.rule.name
        document.event = .denied
        document.denied = EventDocument.Denied(reason: refusal.reason)
        return await dispatch(
            refusal.rule, event: tag.event, document: document, presentation: nil, denial: refusal.reason)
    }

    /// The event document of a tag, without its rule.
    private static func document(of tag: ReadTag, eventID: String, time: Date) -> EventDocument {
        var document = EventDocument(
            id: eventID, time: Timestamp.rfc3339(time), rule: "", reader: tag.tag.reader,
            tag: .init(uid: tag.tag.uid, tech: tag.tag.tech ?? "", known: tag.event.known), uri: tag.tag.uri,
            records: tag.message.records.map(\.summary),
            haTagID: PlaceholderValues(event: tag.event, rule: "", eventID: eventID, time: "")[.homeAssistantTagID])
        document.sun = tag.event.sun.map(EventDocument.Sun.init)
        return document
    }

    private func dispatch(
        _ rule: Rule, event: TagEvent, document: EventDocument, presentation: PresentationContext?,
        denial: DenialReason? = nil
    ) async -> RuleDispatch {
        let actions: [RenderedAction]
        do {
            actions = try rule.render(
                event: event, eventID: document.id, time: document.time, masksSecrets: isDryRun,
                presentation: presentation, denial: denial)
        } catch {
            logger.error("action.render_failed", metadata: ["rule.name": "\(rule.name)", "error": "\(error)"])
            return RuleDispatch(rule: rule.name, result: .renderFailed("\(error)"))
        }
        guard case .perform(let performer) = mode else {
            for action in actions {
                logger.info("dry-run: would \(action.summary)", metadata: ["rule.name": "\(rule.name)"])
            }
            return RuleDispatch(
                rule: rule.name, result: .performed(actions.map { ActionOutcome(kind: $0.kind, result: .dryRun) }))
        }
        var outcomes: [ActionOutcome] = []
        let written = denial == nil ? rule.actions(for: presentation?.kind ?? .tap) : rule.denied ?? []
        for (action, written) in zip(actions, written) {
            if case .open(let uri) = action, case .open(let template) = written, !rule.mayOpen(uri, from: template) {
                // A tag never chooses what the desktop opens: only http, https and what the rule allows.
                logger.warning(
                    "open.refused: the scheme is not http, https or one the rule allows",
                    metadata: ["rule.name": "\(rule.name)", "ndef.uri": "\(uri)"])
                outcomes.append(
                    ActionOutcome(
                        kind: .open,
                        result: .failed(reason: "refused to open \(uri): not http, https or a scheme the rule allows")))
                continue
            }
            if case .open(let uri) = action, rule.asksBeforeOpening(event, denial: denial),
                let refusal = await confirmation(of: uri, rule: rule.name, reader: document.reader)
            {
                outcomes.append(ActionOutcome(kind: .open, result: .declined(reason: refusal)))
                continue
            }
            outcomes.append(await performer.perform(action, rule: rule.name, document: document))
        }
        return RuleDispatch(rule: rule.name, result: .performed(outcomes))
    }

    /// Asks before opening: nil when the user chose to open, else why the link stays shut.
    private func confirmation(of uri: String, rule: String, reader: String) async -> String? {
        guard let confirmer else { return "not confirmed: this router cannot ask" }
        switch await confirmer.confirm(uri: uri, rule: rule, reader: reader) {
        case .open:
            toldCannotAsk.value.withLock { $0 = false }
            return nil
        case .declined:
            return "not confirmed"
        case .dropped(let why):
            // Not asked, or no longer: the same link already asked about, too many questions, or stopping.
            logger.info("open.question_dropped", metadata: ["rule.name": "\(rule)", "reason": "\(why)"])
            return "not confirmed: \(why)"
        case .unavailable(let why):
            let first = toldCannotAsk.value.withLock { told in
                defer { told = true }
                return !told
            }
            if first {
                let message =
                    "open.cannot_ask: a tag this rule does not trust would open a link, and the desktop cannot be "
                    + "asked; nothing opens (confirm: never opens without asking)"
                logger.warning(
                    "\(message)",
                    metadata: ["rule.name": "\(rule)", "reason": "\(why)"])
            }
            return "not confirmed: \(why)"
        }
    }

    private var isDryRun: Bool {
        if case .dryRun = mode { return true }
        return false
    }
}

/// A flag shared by copies of a value (the dispatcher's "said once").
final class OnceFlag: Sendable {
    let value = Mutex(false)
}
