public import Foundation
public import Logging
public import TagActions
public import TagRules

/// Carries out the rendered actions of a matched rule: commands and `open` through the command runner,
/// webhooks into the durable outbox.
public struct Dispatcher: Sendable {
    let runner: CommandRunner
    let opener: Opener?
    let outbox: OutboxWorker?
    let isDryRun: Bool
    let logger: Logger

    /// Creates a dispatcher.
    /// - Parameters:
    ///   - runner: runs `run` and `open` commands.
    ///   - opener: the URL opener found at start-up, `nil` if there is none (`open` actions then fail clearly).
    ///   - outbox: where webhooks are queued; `nil` only in dry-run mode.
    ///   - isDryRun: log what would be done and do nothing.
    ///   - logger: where actions are logged.
    public init(runner: CommandRunner, opener: Opener?, outbox: OutboxWorker?, isDryRun: Bool, logger: Logger) {
        self.runner = runner
        self.opener = opener
        self.outbox = outbox
        self.isDryRun = isDryRun
        self.logger = logger
    }

    /// Renders and carries out every action of `rule` for `event`.
    ///
    /// Commands start at once and are awaited in parallel; a webhook is queued in the outbox (written to disk
    /// before this returns), and delivered by the outbox worker.
    /// - Parameters:
    ///   - rule: the matched rule.
    ///   - event: the tag event.
    ///   - document: the event document (id, time, records) for `TAG_EVENT_JSON` and webhook bodies.
    ///   - time: the tap time.
    /// - Returns: one outcome per action, in the rule's order.
    public func dispatch(rule: Rule, event: TagEvent, document: EventDocument, time: Date) async -> [ActionOutcome] {
        let actions: [RenderedAction]
        do {
            actions = try rule.render(event: event, eventID: document.id, time: time, masksSecrets: isDryRun)
        } catch {
            logger.error("action.render_failed", metadata: ["rule.name": "\(rule.name)", "error": "\(error)"])
            return [ActionOutcome(kind: "render", outcome: "failed", detail: "\(error)")]
        }
        if isDryRun {
            return actions.map { action in
                logger.info("dry-run: would \(Self.describe(action))", metadata: ["rule.name": "\(rule.name)"])
                return ActionOutcome(kind: Self.kind(of: action), outcome: "dry-run")
            }
        }
        return await withTaskGroup(of: (Int, ActionOutcome).self) { group in
            for (index, action) in actions.enumerated() {
                group.addTask { (index, await perform(action, rule: rule, document: document)) }
            }
            var outcomes = [ActionOutcome?](repeating: nil, count: actions.count)
            for await (index, outcome) in group {
                outcomes[index] = outcome
            }
            return outcomes.compactMap { $0 }
        }
    }

    private func perform(_ action: RenderedAction, rule: Rule, document: EventDocument) async -> ActionOutcome {
        switch action {
        case .run(let argv, let environment, let cwd, let timeout):
            let command = CommandAction(argv: argv, environment: environment, workingDirectory: cwd, timeout: timeout)
            return await run(command, kind: "run", document: document)
        case .open(let uri):
            guard let opener else {
                return ActionOutcome(
                    kind: "open", outcome: "failed",
                    detail: "no URL opener (xdg-open) was found at start-up; install xdg-utils")
            }
            return await run(opener.command(opening: uri), kind: "open", document: document)
        case .webhook(let webhook):
            guard let outbox else {
                return ActionOutcome(kind: "webhook", outcome: "failed", detail: "no outbox")
            }
            let request = WebhookRequest(
                url: webhook.url, method: webhook.method,
                headers: webhook.headers.map { WebhookRequest.Header($0.name, $0.value) },
                body: webhook.body.map { Array($0.utf8) } ?? document.jsonBytes(),
                secret: webhook.secret, timeout: webhook.timeout, retryFor: webhook.retryFor,
                eventID: document.id, rule: rule.name)
            do {
                let id = try outbox.enqueue(request)
                return ActionOutcome(kind: "webhook", outcome: "queued", detail: "delivery \(id)")
            } catch {
                logger.error("webhook.enqueue_failed", metadata: ["rule.name": "\(rule.name)", "error": "\(error)"])
                return ActionOutcome(kind: "webhook", outcome: "failed", detail: "\(error)")
            }
        }
    }

    private func run(_ command: CommandAction, kind: String, document: EventDocument) async -> ActionOutcome {
        do {
            let result = try await runner.run(command, event: document)
            let status: String
            switch result.termination {
            case .exited(let code): status = "exit \(code)"
            case .signaled(let signal): status = "signal \(signal)"
            }
            let detail = result.timedOut ? "\(status) (timed out)" : status
            return ActionOutcome(kind: kind, outcome: result.isSuccess ? "ok" : "failed", detail: detail)
        } catch let error as ActionError where error.code == .queueFull {
            return ActionOutcome(kind: kind, outcome: "dropped", detail: "\(error)")
        } catch {
            return ActionOutcome(kind: kind, outcome: "failed", detail: "\(error)")
        }
    }

    static func kind(of action: RenderedAction) -> String {
        switch action {
        case .run: "run"
        case .open: "open"
        case .webhook: "webhook"
        }
    }

    static func describe(_ action: RenderedAction) -> String {
        switch action {
        case .run(let argv, _, _, _): "run \(argv)"
        case .open(let uri): "open \(uri)"
        case .webhook(let webhook): "\(webhook.method) \(webhook.url)"
        }
    }
}
