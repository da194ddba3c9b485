import Foundation
import TagActions
import Testing

@Suite("Webhook requests: validation, redaction, signature, retry policy")
struct WebhookRequestTests {
    static func request(url: String = "http://h.example/x", method: String = "POST", headers: [(String, String)] = [])
        -> WebhookRequest
    {
        WebhookRequest(url: url, method: method, headers: headers.map { .init($0.0, $0.1) }, eventID: "e", rule: "door")
    }

    @Test(
        "invalid requests are refused with a message naming the rule and the part",
        arguments: [
            (
                request(url: "ftp://h.example/x"),
                "webhook of rule 'door': URL ftp://h.example/x is not an http or https URL"
            ),
            (request(url: "http:///nohost"), "webhook of rule 'door': URL http:///nohost is not an http or https URL"),
            (
                request(url: "http://h.example/a b?token=t"),
                "webhook of rule 'door': URL http://h.example/a%20b?… contains a space or control character"
            ),
            (
                request(url: "http://h.example/a\r\nX: y"),
                "webhook of rule 'door': URL http://h.example/a%0D%0AX:%20y contains a space or control character"
            ),
            (request(method: "GE T"), "webhook of rule 'door': method 'GE T' is not a valid HTTP method"),
            (request(headers: [("Bad Name", "v")]), "webhook of rule 'door': invalid header name 'Bad Name'"),
            (
                request(headers: [("X-Tag", "a\r\nEvil: yes")]),
                "webhook of rule 'door': header 'X-Tag' contains CR, LF or NUL"
            ),
            (request(headers: [("X-Tag", "a\nb")]), "webhook of rule 'door': header 'X-Tag' contains CR, LF or NUL"),
            (request(headers: [("X-Tag", "a\u{0}b")]), "webhook of rule 'door': header 'X-Tag' contains CR, LF or NUL"),
        ]
    )
    func invalid(request: WebhookRequest, message: String) {
        #expect {
            try request.validate()
        } throws: { error in
            (error as? ActionError)?.description == message && (error as? ActionError)?.code == .invalidRequest
        }
    }

    @Test(
        "valid requests pass", arguments: ["http://127.0.0.1:8123/api?x=%20", "HTTPS://Example.com", "http://[::1]/"])
    func valid(url: String) throws {
        try Self.request(url: url, headers: [("Authorization", "Bearer x ü")]).validate()
    }

    @Test(
        "URLs are redacted for logs and history",
        arguments: [
            ("https://user:pw@h.example:8443/a/b?token=SECRET#frag", "https://h.example:8443/a/b?…"),
            ("http://h.example/path", "http://h.example/path"),
            ("not a url", "<invalid URL>"),
        ]
    )
    func redaction(url: String, shown: String) {
        #expect(WebhookRequest.redacted(url) == shown)
    }

    @Test("the signature is HMAC-SHA256 of \"<timestamp>.<body>\" (vectors computed with Python's hmac)")
    func signatureVectors() {
        #expect(
            WebhookSignature.sign(
                body: Array(#"{"hello":"world"}"#.utf8),
                timestamp: 1_700_000_000,
                secret: "It's a Secret to Everybody"
            ) == "sha256=08c0aaa4721d7e090415dc782eb1818362b0e857612ef36e6dcf8c773571b03b"
        )
        #expect(
            WebhookSignature.sign(body: [], timestamp: 0, secret: "")
                == "sha256=b849d5a581847b281957065739df36df2463d1977ea8d6e1e4e6cf33fadc68c3"
        )
    }

    @Test("backoff doubles with jitter in [d/2, d] up to the cap", arguments: 1...12)
    func backoff(attempts: Int) {
        let policy = RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(300))
        var generator = SystemRandomNumberGenerator()
        let full = min(1000 * (Int64(1) << (attempts - 1)), 300_000)
        for _ in 0..<50 {
            let delay = policy.delayMilliseconds(afterAttempts: attempts, retryAfter: nil, using: &generator)
            #expect(delay >= full / 2 && delay <= full)
        }
    }

    @Test("Retry-After is honoured exactly, clamped to the maximum")
    func retryAfterDelay() {
        let policy = RetryPolicy(maxRetryAfter: .seconds(3600))
        var generator = SystemRandomNumberGenerator()
        #expect(policy.delayMilliseconds(afterAttempts: 1, retryAfter: .seconds(1), using: &generator) == 1000)
        #expect(policy.delayMilliseconds(afterAttempts: 9, retryAfter: .seconds(0), using: &generator) == 0)
        #expect(
            policy.delayMilliseconds(afterAttempts: 1, retryAfter: .seconds(Int64(1) << 40), using: &generator)
                == 3_600_000
        )
    }

    @Test(
        "Retry-After parsing: seconds, HTTP-date, garbage",
        arguments: [
            ("1", Optional(Duration.seconds(1))),
            (" 120 ", .seconds(120)),
            ("99999999999999999999999", .seconds(Int64(1) << 40)),
            ("Tue, 14 Nov 2023 22:13:30 GMT", .seconds(10)),
            ("Tue, 14 Nov 2023 22:13:00 GMT", .seconds(0)),
            ("-5", nil),
            ("soon", nil),
            ("", nil),
        ]
    )
    func retryAfterParsing(value: String, expected: Duration?) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.parseRetryAfter(value, now: now) == expected)
    }
}
