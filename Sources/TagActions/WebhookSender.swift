import Foundation
import NIOCore
import NIOHTTP1
import WebhookRetry

/// Sends one attempt of a delivery with ``WebhookClient`` and classifies the answer.
struct WebhookSender: Sendable {
    /// Headers TagRouter always sets itself; a rule's headers of the same name are dropped.
    static let reservedHeaders: Set<String> = [
        "user-agent", "x-tagrouter-event", "x-tagrouter-timestamp", "x-tagrouter-signature", "content-length",
        "transfer-encoding", "host",
    ]
    let client: WebhookClient
    let userAgent: String

    /// The request of one attempt, signed with this attempt's timestamp, or nil if its URL is not an `http` or
    /// `https` URL (``WebhookRequest/validate()`` refuses those before they are stored).
    func request(for delivery: PendingDelivery, now: Date) -> WebhookClient.Request? {
        var headers = HTTPHeaders()
        var hasContentType = false
        for header in delivery.headers where !Self.reservedHeaders.contains(header.name.lowercased()) {
            if header.name.lowercased() == "content-type" { hasContentType = true }
            headers.add(name: header.name, value: header.value)
        }
        if !hasContentType && !(delivery.body.isEmpty && delivery.method == "GET") {
            headers.add(name: "Content-Type", value: delivery.contentType)
        }
        headers.add(name: "User-Agent", value: userAgent)
        headers.add(name: "X-TagRouter-Event", value: delivery.eventID)
        if let secret = delivery.secret {
            let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
            headers.add(name: "X-TagRouter-Timestamp", value: String(timestamp))
            headers.add(
                name: "X-TagRouter-Signature",
                value: WebhookSignature.sign(body: delivery.body, timestamp: timestamp, secret: secret)
            )
        }
        let hasBody = !delivery.body.isEmpty || delivery.method != "GET"
        return WebhookClient.Request(
            method: HTTPMethod(rawValue: delivery.method),
            url: delivery.url,
            headers: headers,
            body: hasBody ? delivery.body : nil
        )
    }

    /// Makes one attempt. Never throws: every failure is a classified result whose error names the URL.
    func attempt(_ delivery: PendingDelivery) async -> AttemptResult {
        let now = Date()
        let deadline = NIODeadline.now() + .milliseconds(delivery.timeoutMilliseconds)
        // Redacting parses the URL once more: only an error message needs it.
        var shown: String { WebhookRequest.redacted(delivery.url) }
        guard let request = request(for: delivery, now: now) else {
            return AttemptResult(verdict: .failed, error: "\(delivery.method) \(shown): not an http or https URL")
        }
        let response: WebhookResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch {
            return AttemptResult(verdict: .retry, error: "\(delivery.method) \(shown): \(error)")
        }
        let status = Int(response.status.code)
        let verdict = AttemptResult.verdict(forStatus: status)
        var result = AttemptResult(verdict: verdict, status: status)
        if verdict != .delivered {
            let text = String(decoding: response.snippet, as: UTF8.self).filter { !$0.isNewline }
            result.error = "\(delivery.method) \(shown): HTTP \(status)" + (text.isEmpty ? "" : ": \(text)")
            if verdict == .failed && (300...399).contains(status) {
                result.error! += " (redirects are not followed)"
            }
        }
        if verdict == .retry, let value = response.headers.first(name: "Retry-After") {
            result.retryAfter = RetryPolicy.parseRetryAfter(value, now: now)
        }
        return result
    }
}
