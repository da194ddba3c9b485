import Foundation
import HTTPTestSupport
import TestSupport
import Testing
import VirtualTag

/// `tagrouter run` routing taps by a live association file that it fetches in the background from a real HTTPS
/// server on 127.0.0.1 (certificate from a CA made by the test), with taps through a real pcscd and vpcd
/// (docs/rules.md, "Live association files").
@Suite(.needsRoot, .serialized) struct RouterAssociationTests {
    static let domain = "shop.example.test"
    static let file = Array(
        #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": "/buy/*", "exclude": true}, {"/": "/shop/*"}]}]}}"#
            .utf8)
    static let rules =
        "version: 1\nrules:\n"
        + recordingRule(
            name: "shop", match: "{ aasa: { domain: \(domain), appID: ABCDE12345.com.example.shop } }",
            marker: "shop", extra: "cooldown: 0")

    /// The first fetch hangs: a tap meanwhile is decided at once (the rule matches nothing yet), not held up by
    /// the fetch. After the fetch fails, SIGHUP fetches again; then the file's components route the taps.
    @Test func tapsAreRoutedByTheFetchedFileAndNeverWaitForAFetch() async throws {
        let authority = try TestCertificateAuthority.make()
        defer { authority.remove() }
        let server = try await HTTPTestServer.start(tls: try authority.issue(for: Self.domain)) { _, index in
            index == 0 ? .hang : .status(200, headers: [("ETag", "\"1\"")], body: Self.file)
        }
        let environment = [
            "TAGROUTER_AASA_CA": authority.certificate,
            "TAGROUTER_AASA_CONNECT_TO": "\(Self.domain)=127.0.0.1:\(server.port)",
        ]
        try await RouterHarness.with(rules: Self.rules, environment: environment) { harness in
            _ = try await server.waitForRequests(1)
            #expect(server.requests.count == 1)
            // The fetch hangs; a tap now is decided without waiting for it.
            let early = try harness.present(uri: "https://\(Self.domain)/shop/1")
            try await harness.router.waitForLog("tap.ignored")
            // Decided while the fetch still hung: before it timed out.
            #expect(harness.router.lines(containing: "aasa.refresh_failed").isEmpty)
            #expect(server.requests.count == 1)
            try await harness.remove(early, slot: 0)
            #expect(harness.dispatched.isEmpty)
            // The hanging fetch times out (10 s): one warning naming the domain.
            try await harness.router.waitForLog("aasa.refresh_failed", timeout: .seconds(30))
            #expect(harness.router.lines(containing: "aasa.refresh_failed").count == 1)
            #expect(harness.router.lines(containing: "aasa.refresh_failed").first?.contains(Self.domain) == true)
            // SIGHUP refreshes at once.
            harness.router.signal(SIGHUP)
            try await harness.router.waitForLog("aasa.fetched", timeout: .seconds(15))
            let shop = try harness.present(uri: "https://\(Self.domain)/shop/2")
            try await harness.waitForDispatches(1)
            try await harness.remove(shop, slot: 0)
            #expect(harness.dispatched == ["shop|Virtual PCD 00 00|https://\(Self.domain)/shop/2"])
            let buy = try harness.present(uri: "https://\(Self.domain)/buy/2", slot: 1)
            try await harness.router.waitForLog("tap.ignored", count: 2)
            await buy.remove()
            #expect(harness.dispatched.count == 1)
            // The command line sees the router's cache.
            let show = try await TagRouterBinary.run(
                [
                    "aasa", "show", Self.domain, "--uri", "https://\(Self.domain)/shop/3", "--state-dir",
                    harness.directory + "/state", "--rules", harness.rulesDirectory,
                ], environment: harness.pcscd.environment)
            #expect(show.status == 0)
            #expect(show.standardOutput.contains("etag: \"1\""))
            #expect(show.standardOutput.contains("  shop: matched: components: {\"/\": \"/shop/*\"}"))
        }
        try await server.stop()
    }
}
