public import Logging
public import TagRules

/// Carries out rendered actions: `run` and `open` through the command runner, webhooks and QoS 1 MQTT
/// publications into the durable outbox (written to disk before ``perform(_:rule:document:)`` returns; the
/// outbox worker and the MQTT publisher deliver them).
public struct ActionExecutor: ActionPerforming {
    let runner: CommandRunner
    let opener: Opener?
    let outbox: OutboxWorker
    let mqtt: MQTTPublisher?
    let typist: Typist?
    let logger: Logger

    /// Creates an executor.
    /// - Parameters:
    ///   - runner: runs `run` and `open` commands.
    ///   - opener: the URL opener found at start-up; `nil` if there is none (`open` actions then fail clearly).
    ///   - outbox: where webhooks are queued.
    ///   - mqtt: where `mqtt` actions go; `nil` when the rules have no `mqtt:` block.
    ///   - typist: how `type` actions reach the desktop; `nil` when the session has no display to type into.
    ///   - logger: where failures to queue are logged.
    public init(
        runner: CommandRunner, opener: Opener?, outbox: OutboxWorker, mqtt: MQTTPublisher? = nil,
        typist: Typist? = nil, logger: Logger
    ) {
        self.runner = runner
        self.opener = opener
        self.outbox = outbox
        self.mqtt = mqtt
        self.typist = typist
        self.logger = logger
    }

    /// Carries out one action; see ``ActionPerforming/perform(_:rule:document:)``.
    public func perform(_ action: RenderedAction, rule: String, document: EventDocument) async -> ActionOutcome {
        switch action {
        case .run(let argv, let environment, let cwd, let timeout):
            let command = CommandAction(argv: argv, environment: environment, workingDirectory: cwd, timeout: timeout)
            return await run(command, kind: .run, document: document)
        case .open(let uri):
            guard let opener else {
                return ActionOutcome(
                    kind: .open,
                    result: .failed(reason: "no URL opener (xdg-open) was found at start-up; install xdg-utils"))
            }
            return await run(opener.command(opening: uri), kind: .open, document: document)
        case .type(let text):
            guard let typist else {
                return ActionOutcome(
                    kind: .type,
                    result: .failed(
                        reason: "no desktop to type into: the router's session has neither WAYLAND_DISPLAY with wtype "
                            + "nor DISPLAY with xdotool (type: works in the user unit)"))
            }
            return await run(typist.command(typing: text), kind: .type, document: document)
        case .webhook(let webhook):
            do {
                let id = try outbox.enqueue(.webhook(webhook, rule: rule, document: document))
                return ActionOutcome(kind: .webhook, result: .queued(delivery: id))
            } catch {
                logger.error("webhook.enqueue_failed", metadata: ["rule.name": "\(rule)", "error": "\(error)"])
                return ActionOutcome(kind: .webhook, result: .failed(reason: "\(error)"))
            }
        case .mqtt(let rendered):
            guard let mqtt else {
                return ActionOutcome(
                    kind: .mqtt,
                    result: .failed(reason: "no MQTT broker: the router started without an mqtt: block; restart it"))
            }
            do {
                return ActionOutcome(
                    kind: .mqtt, result: try mqtt.enqueue(.mqtt(rendered, rule: rule, document: document)))
            } catch {
                logger.error("mqtt.enqueue_failed", metadata: ["rule.name": "\(rule)", "error": "\(error)"])
                return ActionOutcome(kind: .mqtt, result: .failed(reason: "\(error)"))
            }
        }
    }

    private func run(_ command: CommandAction, kind: ActionKind, document: EventDocument) async -> ActionOutcome {
        do {
            let result = try await runner.run(command, event: document)
            return ActionOutcome(kind: kind, result: .finished(result.termination, timedOut: result.timedOut))
        } catch let error as ActionError where error.code == .queueFull {
            return ActionOutcome(kind: kind, result: .dropped(reason: "\(error)"))
        } catch {
            return ActionOutcome(kind: kind, result: .failed(reason: "\(error)"))
        }
    }
}
