import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WebhookRetry

/// Sends one attempt of a delivery with AsyncHTTPClient and classifies the answer.
struct WebhookSender: Sendable {
    /// Headers TagRouter always sets itself; a rule's headers of the same name are dropped.
    static let reservedHeaders: Set<String> = [
        "user-agent", "x-tagrouter-event", "x-tagrouter-timestamp", "x-tagrouter-signature", "content-length",
        "transfer-encoding", "host",
    ]
    /// How much of an answer's body is read before the connection is given up.
    static let maxBodyRead = 64 * 1024
    /// How much of an answer's body is quoted in error messages.
    static let snippetLength = 200

    let client: HTTPClient
    let userAgent: String

    /// The request of one attempt, signed with this attempt's timestamp.
    func request(for delivery: PendingDelivery, now: Date) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: delivery.url)
        request.method = HTTPMethod(rawValue: delivery.method)
        var hasContentType = false
        for header in delivery.headers where !Self.reservedHeaders.contains(header.name.lowercased()) {
            if header.name.lowercased() == "content-type" { hasContentType = true }
            request.headers.add(name: header.name, value: header.value)
        }
        if !hasContentType && !(delivery.body.isEmpty && delivery.method == "GET") {
            request.headers.add(name: "Content-Type", value: delivery.contentType)
        }
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "X-TagRouter-Event", value: delivery.eventID)
        if let secret = delivery.secret {
            let timestamp = Int64(now.timeIntervalSince1970.rounded(.down))
            request.headers.add(name: "X-TagRouter-Timestamp", value: String(timestamp))
            request.headers.add(
                name: "X-TagRouter-Signature",
                value: WebhookSignature.sign(body: delivery.body, timestamp: timestamp, secret: secret)
            )
        }
        if !delivery.body.isEmpty || delivery.method != "GET" {
            request.body = .bytes(delivery.body)
        }
        return request
    }

    /// Makes one attempt. Never throws: every failure is a classified result whose error names the URL.
    func attempt(_ delivery: PendingDelivery) async -> AttemptResult {
        let now = Date()
        let shown = WebhookRequest.redacted(delivery.url)
        do {
            let response = try await client.execute(
                request(for: delivery, now: now),
                timeout: .milliseconds(delivery.timeoutMilliseconds)
            )
            let status = Int(response.status.code)
            var snippet: [UInt8] = []
            var total = 0
            do {
                for try await chunk in response.body {
                    total += chunk.readableBytes
                    if snippet.count < Self.snippetLength {
                        snippet += chunk.readableBytesView.prefix(Self.snippetLength - snippet.count)
                    }
                    if total > Self.maxBodyRead { break }
                }
            } catch {
                // The status is what counts; a body cut short does not change the verdict.
            }
            let verdict = AttemptResult.verdict(forStatus: status)
            var result = AttemptResult(verdict: verdict, status: status)
            if verdict != .delivered {
                let text = String(decoding: snippet, as: UTF8.self).filter { !$0.isNewline }
                result.error = "\(delivery.method) \(shown): HTTP \(status)" + (text.isEmpty ? "" : ": \(text)")
                if verdict == .failed && (300...399).contains(status) {
                    result.error! += " (redirects are not followed)"
                }
            }
            if verdict == .retry, let value = response.headers.first(name: "Retry-After") {
                result.retryAfter = RetryPolicy.parseRetryAfter(value, now: now)
            }
            return result
        } catch {
            return AttemptResult(verdict: .retry, error: "\(delivery.method) \(shown): \(Self.describe(error))")
        }
    }

    /// A short description of a client error.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "timed out"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }
}
