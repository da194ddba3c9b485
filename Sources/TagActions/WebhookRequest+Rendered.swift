import StateStore
public import TagRules

extension WebhookRequest {
    /// The delivery of a rendered `webhook` action.
    /// - Parameters:
    ///   - webhook: the rendered action.
    ///   - rule: the name of the rule it comes from.
    ///   - document: the event; its JSON is the body when the action sets none.
    public init(_ webhook: RenderedWebhook, rule: String, document: EventDocument) {
        self.init(
            url: webhook.url, method: webhook.method, headers: webhook.headers.map { Header($0.name, $0.value) },
            body: webhook.body.map { Array($0.utf8) } ?? document.jsonBytes(), secret: webhook.secret,
            timeout: webhook.timeout, retryFor: webhook.retryFor, eventID: document.id, rule: rule,
            transport: webhook.transport)
    }
}
