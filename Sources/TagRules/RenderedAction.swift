import WebhookTarget

/// An action with every placeholder replaced: what TagActions carries out and what `match` shows.
public enum RenderedAction: Sendable, Hashable, Encodable {
    /// Execute `argv` directly (execve), with `environment` added to the router's, in `cwd`, for at most
    /// `timeout`.
    case run(argv: [String], environment: [String: String], cwd: String?, timeout: Duration)
    /// Open `uri` with the desktop's URL opener.
    case open(uri: String)
    /// Deliver an HTTP request.
    case webhook(RenderedWebhook)
    /// Publish to the MQTT broker.
    case mqtt(RenderedMQTT)
    /// Type `text` into the focused window of the desktop session (`wtype` or `xdotool type`).
    case type(text: String)

    private enum CodingKeys: String, CodingKey {
        case kind, argv, env, cwd, timeout, uri, url, method, headers, body, signed, retryFor
        case topic, payload, qos, retain, text
    }

    /// Encodes the action for `match --json` (durations as `10s`-style text; a webhook's URL redacted, its
    /// credential headers `<redacted>`, and `signed` instead of its secret: ``URLRedaction``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .run(let argv, let environment, let cwd, let timeout):
            try container.encode("run", forKey: .kind)
            try container.encode(argv, forKey: .argv)
            try container.encode(environment, forKey: .env)
            try container.encodeIfPresent(cwd, forKey: .cwd)
            try container.encode(DurationText.format(timeout), forKey: .timeout)
        case .open(let uri):
            try container.encode("open", forKey: .kind)
            try container.encode(uri, forKey: .uri)
        case .type(let text):
            try container.encode("type", forKey: .kind)
            try container.encode(text, forKey: .text)
        case .webhook(let webhook):
            try container.encode("webhook", forKey: .kind)
            // As the text shows them: the URL, credential headers and the secret never leave the router.
            try container.encode(URLRedaction.redacted(webhook.url), forKey: .url)
            try container.encode(webhook.method, forKey: .method)
            try container.encode(
                webhook.headers.map { [$0.name, URLRedaction.shownValue(ofHeader: $0.name, $0.value)] },
                forKey: .headers)
            try container.encodeIfPresent(webhook.body, forKey: .body)
            try container.encode(webhook.secret != nil, forKey: .signed)
            try container.encode(DurationText.format(webhook.timeout), forKey: .timeout)
            try container.encode(DurationText.format(webhook.retryFor), forKey: .retryFor)
        case .mqtt(let mqtt):
            try container.encode("mqtt", forKey: .kind)
            try container.encode(mqtt.topic, forKey: .topic)
            try container.encodeIfPresent(mqtt.payload, forKey: .payload)
            try container.encode(mqtt.qos, forKey: .qos)
            try container.encode(mqtt.retain, forKey: .retain)
            if mqtt.qos > 0 { try container.encode(DurationText.format(mqtt.retryFor), forKey: .retryFor) }
        }
    }
}
