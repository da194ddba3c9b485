public import WebhookTarget

/// One action of a rule, parsed and validated, its strings kept as templates (docs/rules.md, "Actions").
public enum Action: Sendable, Hashable {
    /// Run a command from an argument vector, never through a shell.
    case run(RunAction)
    /// Hand a URI to the desktop's URL opener.
    case open(Template)
    /// Send an HTTP request.
    case webhook(WebhookAction)
    /// Publish to the rule set's MQTT broker.
    case mqtt(MQTTAction)
    /// Type text into the focused window of the user's desktop session (docs/rules.md, "`type`").
    case type(Template)

    /// The kind of action, as written in rules (`run`, `open`, `webhook`, `mqtt`).
    public var kindName: String {
        switch self {
        case .run: "run"
        case .open: "open"
        case .webhook: "webhook"
        case .mqtt: "mqtt"
        case .type: "type"
        }
    }

    /// Every template of the action, in the order written.
    var templates: [Template] {
        switch self {
        case .run(let run): run.argv + run.environment.map(\.value)
        case .open(let uri): [uri]
        case .webhook(let webhook):
            [webhook.url] + webhook.headers.map(\.value) + [webhook.body, webhook.secret].compactMap { $0 }
        case .mqtt(let mqtt): [mqtt.topic, mqtt.payload].compactMap { $0 }
        case .type(let text): [text]
        }
    }
}

/// A `run` action.
public struct RunAction: Sendable, Hashable {
    /// The argument vector; element 0 is the program.
    public var argv: [Template]
    /// Extra environment variables, in the order written.
    public var environment: [EnvironmentEntry]
    /// The working directory, if given.
    public var cwd: String?
    /// How long the command may run before SIGTERM.
    public var timeout: Duration
}

/// One `env` entry of a `run` action.
public struct EnvironmentEntry: Sendable, Hashable {
    /// The variable name.
    public var name: String
    /// The value template.
    public var value: Template
}

/// A `webhook` action.
public struct WebhookAction: Sendable, Hashable {
    /// The URL (placeholders percent-encoded).
    public var url: Template
    /// The HTTP method, upper case.
    public var method: String
    /// The headers, in the order written (placeholders may not insert CR/LF).
    public var headers: [Header]
    /// The body; nil means the event document.
    public var body: Template?
    /// Whether the body is JSON (no `Content-Type` header, or one naming JSON): placeholders are JSON-escaped.
    public var bodyIsJSON: Bool
    /// The signing secret, if any.
    public var secret: Template?
    /// The timeout of one attempt.
    public var timeout: Duration
    /// How long failed deliveries are retried.
    public var retryFor: Duration
    /// Trust anchors, client certificate and proxy (literal, never from the tag).
    public var transport = WebhookTransport()

    /// One header template.
    public struct Header: Sendable, Hashable {
        /// The header name.
        public var name: String
        /// The value template.
        public var value: Template
    }
}
