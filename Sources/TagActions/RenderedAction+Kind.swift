public import TagRules
import WebhookTarget

extension RenderedAction {
    /// The action's kind.
    public var kind: ActionKind {
        switch self {
        case .run: .run
        case .open: .open
        case .webhook: .webhook
        case .mqtt: .mqtt
        case .type: .type
        }
    }

    /// What the action would do, for a dry run's log line: `run ["notify-send", "hi"]`,
    /// `POST https://ha.local:8123/<3f9a1c2e>` (the URL redacted, ``TagRules/URLRedaction``).
    public var summary: String {
        switch self {
        case .run(let argv, _, _, _): "run \(argv)"
        case .open(let uri): "open \(uri)"
        case .webhook(let webhook): "\(webhook.method) \(URLRedaction.redacted(webhook.url))"
        case .mqtt(let mqtt): "mqtt \(mqtt.topic) qos \(mqtt.qos)"
        case .type(let text): "type \(text.unicodeScalars.count) characters"
        }
    }
}
