import Crypto
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing
import VirtualTag

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `tagrouter run` delivering a webhook to a real HTTP server on 127.0.0.1, and serving its metrics.
@Suite(.needsRoot, .serialized) struct RouterWebhookTests {
    @Test func aMatchingTapArrivesAtTheReceiverSignedWithTheEventDocument() async throws {
        let server = try await HTTPTestServer.start { _, _ in .status(200) }
        let rules = """
            version: 1
            rules:
              - name: home-assistant
                match: { domains: [example.com] }
                webhook:
                  url: "http://127.0.0.1:\(server.port)/api/events/tag_scanned?reader={reader}"
                  headers: { Authorization: "Bearer ${HA_TOKEN}" }
                  secret: "${HOOK_SECRET}"

            """
        let environment = ["HA_TOKEN": "token-123", "HOOK_SECRET": "s3cret"]
        try await RouterHarness.with(rules: rules, environment: environment) { harness in
            let tag = try harness.present(uri: "https://example.com/door?key=1")
            let requests = try await server.waitForRequests(1)
            await tag.remove()
            let request = try #require(requests.first)
            #expect(request.method == "POST")
            #expect(request.uri == "/api/events/tag_scanned?reader=Virtual%20PCD%2000%2000")
            #expect(request.header("Authorization") == "Bearer token-123")
            #expect(request.header("Content-Type") == "application/json")
            let eventID = try #require(request.header("X-TagRouter-Event"))
            let timestamp = try #require(request.header("X-TagRouter-Timestamp"))
            let key = SymmetricKey(data: Data("s3cret".utf8))
            let mac = HMAC<SHA256>.authenticationCode(
                for: Data((timestamp + ".").utf8) + Data(request.body), using: key)
            #expect(
                request.header("X-TagRouter-Signature") == "sha256=" + mac.map { String(format: "%02x", $0) }.joined())
            let document = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            #expect(document["id"] as? String == eventID)
            #expect(document["rule"] as? String == "home-assistant")
            #expect(document["reader"] as? String == "Virtual PCD 00 00")
            #expect(document["uri"] as? String == "https://example.com/door?key=1")
            #expect((document["tag"] as? [String: String]) == ["uid": "04A1B2C3D4E580", "tech": "type2"])
            #expect((document["records"] as? [[String: String]])?.first?["uri"] == "https://example.com/door?key=1")
            #expect(!harness.router.log.contains("token-123"))
            #expect(!harness.router.log.contains("s3cret"))
            let history = try await TagRouterBinary.run(
                ["history", "--state-dir", harness.directory + "/state", "--json"],
                environment: harness.pcscd.environment)
            #expect(history.status == 0)
            #expect(history.standardOutput.contains(eventID))
        }
        try await server.stop()
    }

    /// Issue 29: a token in a webhook's path, a literal Authorization header and a literal HMAC secret never reach
    /// any output: the router's log (a failed attempt, the delivery), `history` (text and JSON), `match` (text and
    /// JSON) and a dry run's log show the URL as `scheme://host:port/<hash>`.
    @Test func aTokenInTheWebhookPathNeverAppearsInAnyOutput() async throws {
        let answers = Mutex(0)
        let server = try await HTTPTestServer.start { _, _ in
            answers.withLock { count in
                count += 1
                return count == 1 ? .status(500, body: Array("try again".utf8)) : .status(200)
            }
        }
        let token = "ha-token-7f3e9c41"
        let rules = """
            version: 1
            rules:
              - name: home-assistant
                match: { domains: [example.com] }
                webhook:
                  url: "http://127.0.0.1:\(server.port)/api/webhook/\(token)?reader={reader}"
                  headers: { Authorization: "Bearer literal-bearer-55aa", X-Api-Key: "literal-key-66bb" }
                  secret: "literal-hmac-77cc"

            """
        let secrets = [token, "literal-bearer-55aa", "literal-key-66bb", "literal-hmac-77cc"]
        func leaked(_ text: String) -> [String] { secrets.filter { text.contains($0) } }
        try await RouterHarness.with(rules: rules) { harness in
            let tag = try harness.present(uri: "https://example.com/door")
            let requests = try await server.waitForRequests(2, timeout: .seconds(15))
            await tag.remove()
            #expect(requests.last?.uri.contains(token) == true)
            try await harness.router.waitForLog("webhook delivered")
            let state = harness.directory + "/state"
            #expect(harness.router.lines(containing: "HTTP 500").count >= 1, "\(harness.router.log)")
            #expect(
                harness.router.lines(containing: "http://127.0.0.1:\(server.port)/<").count >= 2,
                "\(harness.router.log)")
            #expect(leaked(harness.router.log) == [], "\(harness.router.log)")
            for arguments in [["history", "--state-dir", state], ["history", "--state-dir", state, "--json"]] {
                let history = try await TagRouterBinary.run(arguments, environment: harness.pcscd.environment)
                #expect(history.status == 0)
                #expect(
                    history.standardOutput.contains("http://127.0.0.1:\(server.port)/<"), "\(history.standardOutput)")
                #expect(leaked(history.standardOutput) == [], "\(history.standardOutput)")
            }
            for json in [false, true] {
                let match = try await TagRouterBinary.run(
                    ["match", "https://example.com/door", "--rules", harness.rulesDirectory] + (json ? ["--json"] : []),
                    environment: harness.pcscd.environment)
                #expect(match.status == 0, "\(match.standardError)")
                #expect(match.standardOutput.contains("127.0.0.1:\(server.port)/<"), "\(match.standardOutput)")
                #expect(leaked(match.standardOutput + match.standardError) == [], "\(match.standardOutput)")
            }
        }
        try await RouterHarness.with(rules: rules, arguments: ["--dry-run"]) { harness in
            let tag = try harness.present(uri: "https://example.com/dry")
            try await harness.router.waitForLog("dry-run: would POST http://127.0.0.1:\(server.port)/<")
            await tag.remove()
            #expect(leaked(harness.router.log) == [], "\(harness.router.log)")
        }
        try await server.stop()
    }

    /// A receiver that accepts the connection and never answers its TLS handshake holds its delivery's attempt,
    /// not the router: SIGTERM still ends it cleanly within its shutdown budget, the delivery kept for later.
    @Test func sigtermEndsTheRouterWhileAnAttemptWaitsOnASilentTLSReceiver() async throws {
        let silent = try SilentListener()
        let rules = """
            version: 1
            rules:
              - name: silent
                match: { domains: [example.com] }
                webhook: { url: "https://localhost:\(silent.port)/hook", timeout: 10m }

            """
        try await RouterHarness.with(rules: rules) { harness in
            let tag = try harness.present(uri: "https://example.com/door")
            try await harness.router.waitForLog("rule.name=silent")
            await tag.remove()
            let (status, _) = try await harness.router.terminate(timeout: .seconds(10))
            #expect(status == 0, "\(harness.router.log)")
            let history = try await TagRouterBinary.run(
                ["history", "--state-dir", harness.directory + "/state", "--json"],
                environment: harness.pcscd.environment)
            #expect(history.standardOutput.contains(#""state":"pending""#), "\(history.standardOutput)")
        }
    }

    @Test func metricsCountTheTaps() async throws {
        let port = try await HTTPTestServer.freePort()
        try await RouterHarness.with(
            rules: RouterTests.exampleRules, arguments: ["--metrics", "127.0.0.1:\(port)"]
        ) { harness in
            let tag = try harness.present(uri: "https://example.com/metrics")
            try await harness.waitForDispatches(1)
            await tag.remove()
            let other = try harness.present(uri: "https://ignored.example.net/", slot: 1)
            try await harness.router.waitForLog("tap.ignored")
            await other.remove()
            let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains("tagrouter_taps_total 2"), "\(text)")
            #expect(text.contains("tagrouter_matched_total 1"))
            #expect(text.contains("tagrouter_ignored_total 1"))
            #expect(text.contains("tagrouter_readers_present 2"))
            #expect(text.contains(#"tagrouter_actions_total{kind="run",outcome="ok"} 1"#))
            #expect(text.contains("tagrouter_tap_to_dispatch_seconds_count 1"))
        }
    }
}
