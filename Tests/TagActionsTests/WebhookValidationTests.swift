import Foundation
import StateStore
import TagActions
import TagRules
import Testing
import WebhookRetry
import WebhookTarget

@Suite("Webhook requests: validation, redaction, signature, retry policy")
struct WebhookValidationTests {
    static func request(url: String = "http://h.example/x", method: String = "POST", headers: [(String, String)] = [])
        -> Delivery
    {
        Delivery.webhook(
            url: url, method: method, headers: headers.map { .init($0.0, $0.1) }, eventID: "e", rule: "door")
    }

    @Test(
        "invalid requests are refused with a message naming the rule and the part",
        arguments: [
            (
                request(url: "ftp://h.example/x"),
                "webhook of rule 'door': URL ftp://h.example/<b3d1db31> is not an http or https URL"
            ),
            (
                request(url: "http:///nohost"),
                "webhook of rule 'door': URL http:///<9f51011d> is not an http or https URL"
            ),
            (
                request(url: "http://h.example/a b?token=t"),
                "webhook of rule 'door': URL http://h.example/<5e64cfb9> contains a space or control character"
            ),
            (
                request(url: "http://h.example/a\r\nX: y"),
                "webhook of rule 'door': URL http://h.example/<2ace1129> contains a space or control character"
            ),
            (request(method: "GE T"), "webhook of rule 'door': method 'GE T' is not a valid HTTP method"),
            (request(headers: [("Bad Name", "v")]), "webhook of rule 'door': invalid header name 'Bad Name'"),
            (
                request(headers: [("X-Tag", "a\r\nEvil: yes")]),
                "webhook of rule 'door': header 'X-Tag' contains a control character"
            ),
            (
                request(headers: [("X-Tag", "a\nb")]),
                "webhook of rule 'door': header 'X-Tag' contains a control character"
            ),
            (
                request(headers: [("X-Tag", "a\u{0}b")]),
                "webhook of rule 'door': header 'X-Tag' contains a control character"
            ),
            (
                request(headers: [("X-Tag", "a\u{7}b")]),
                "webhook of rule 'door': header 'X-Tag' contains a control character"
            ),
            (
                request(headers: [("X-Tag", "a\u{7F}b")]),
                "webhook of rule 'door': header 'X-Tag' contains a control character"
            ),
        ]
    )
    func invalid(request: Delivery, message: String) {
        #expect {
            try request.validate()
        } throws: { error in
            (error as? ActionError)?.description == message && (error as? ActionError)?.code == .invalidRequest
        }
    }

    @Test("a tab and text beyond ASCII are field values (RFC 9110)")
    func fieldValuesWithTab() throws {
        try Self.request(headers: [("X-Tag", "a\tb ü")]).validate()
    }

    @Test(
        "valid requests pass", arguments: ["http://127.0.0.1:8123/api?x=%20", "HTTPS://Example.com", "http://[::1]/"])
    func valid(url: String) throws {
        try Self.request(url: url, headers: [("Authorization", "Bearer x ü")]).validate()
    }

    @Test(
        "URLs are redacted for logs and history: scheme://host[:port] and a hash of the rest (vectors: Python hashlib)",
        arguments: [
            ("https://user:pw@h.example:8443/a/b?token=SECRET#frag", "https://h.example:8443/<2df6b816>"),
            ("http://h.example/path", "http://h.example/<379c9f23>"),
            ("https://ha.local:8123/api/webhook/abc-123-secret", "https://ha.local:8123/<fdf35c1b>"),
            ("http://h.example", "http://h.example"),
            ("http://h.example/", "http://h.example"),
            ("http://[::1]:8080/hook", "http://[::1]:8080/<6fc2d051>"),
            ("not a url", "<invalid URL>"),
        ]
    )
    func redaction(url: String, shown: String) {
        #expect(URLRedaction.redacted(url) == shown)
    }

    @Test("a webhook delivery prints no credential, however it is interpolated")
    func descriptionsHideCredentials() throws {
        let delivery = Delivery.webhook(
            url: "https://h.example/api/webhook/tok-123?key=q-456", headers: [.init("Authorization", "Bearer b-789")],
            body: Array("{}".utf8), secret: "s-000", eventID: "e", rule: "r")
        try delivery.validate()
        let printed = ["\(delivery)", String(reflecting: delivery)]
        for text in printed {
            #expect(text.contains("https://h.example/<"), "\(text)")
            for secret in ["tok-123", "q-456", "b-789", "s-000"] { #expect(!text.contains(secret), "\(text)") }
        }
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

    @Test(
        "Retry-After HTTP-dates in the three forms of RFC 9110 §5.6.7, read exactly as the grammar spells them",
        arguments: [
            // IMF-fixdate; now is Tue, 14 Nov 2023 22:13:20 GMT.
            ("Fri, 01 Dec 2023 08:00:00 GMT", Optional(Duration.seconds(1_417_600))),
            ("Thu, 29 Feb 2024 00:00:00 GMT", .seconds(9_164_800)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", .seconds(0)),
            ("Mon, 14 Nov 2023 22:13:30 GMT", .seconds(10)),  // the day name is not checked against the date
            // RFC 850, two-digit year: up to 50 years ahead, else the century before.
            ("Tuesday, 14-Nov-23 22:13:30 GMT", .seconds(10)),
            ("Tuesday, 14-Nov-73 22:13:30 GMT", .seconds(1_577_923_210)),
            ("Wednesday, 14-Nov-74 22:13:30 GMT", .seconds(0)),
            // asctime, day as 2DIGIT or SP DIGIT.
            ("Tue Nov 14 22:13:30 2023", .seconds(10)),
            ("Fri Dec  1 08:00:00 2023", .seconds(1_417_600)),
            ("Fri Dec 01 08:00:00 2023", .seconds(1_417_600)),
            // Not HTTP-dates.
            ("Wed, 29 Feb 2023 00:00:00 GMT", nil),
            ("Fri, 31 Nov 2023 08:00:00 GMT", nil),
            ("Fri, 01 Dec 2023 24:00:00 GMT", nil),
            ("Fri, 01 Dec 2023 08:60:00 GMT", nil),
            ("Fri, 01 Dec 2023 08:00:60 GMT", nil),
            ("Fri, 1 Dec 2023 08:00:00 GMT", nil),
            ("Fri, 01 Dec 23 08:00:00 GMT", nil),
            ("Fri, 01 December 2023 08:00:00 GMT", nil),
            ("Friday, 01 Dec 2023 08:00:00 GMT", nil),
            ("fri, 01 dec 2023 08:00:00 gmt", nil),
            ("Fri, 01 Dec 2023 08:00:00 UTC", nil),
            ("Fri, 01 Dec 2023 08:00:00 +0100", nil),
            ("Fri, 01 Dec 2023 08:00:00 GMTx", nil),
            ("Fri,01 Dec 2023 08:00:00 GMT", nil),
            ("Fri, 01  Dec 2023 08:00:00 GMT", nil),
            ("Fri, 01 Dec 2023 08:00:00", nil),
            ("Fri, 01 Dec 12023 08:00:00 GMT", nil),
            ("Fri, 01-Dec-23 08:00:00 GMT", nil),
            ("Friday, 01-Dec-2023 08:00:00 GMT", nil),
            ("Fri Dec 1 08:00:00 2023", nil),
            ("Fri Dec  1 08:00:00 2023 GMT", nil),
        ]
    )
    func retryAfterHTTPDate(value: String, expected: Duration?) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.parseRetryAfter(value, now: now) == expected)
    }

    @Test("Retry-After IMF-fixdates agree with Foundation's calendar from 1601 to 9999")
    func retryAfterCalendar() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let now = Date(timeIntervalSince1970: -11_644_473_600)  // 1601-01-01 00:00:00 GMT
        // A prime step, so the dates fall on every month, day and time of day over the years.
        for seconds in stride(from: Int64(-11_644_473_600), through: 253_402_300_799, by: 9_999_991) {
            let value = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(
                RetryPolicy.parseRetryAfter(value, now: now) == .seconds(seconds + 11_644_473_600),
                "\(value)")
        }
    }
}
