import Foundation
import HTTPTestSupport
import LiveAssociations
import Logging
import NIOSSL
import StateStore
import TagActions
import TagRules
import TestSupport
import Testing

@testable import TagRouterCore

private let domain = AssociationFixture.domain
private let fileBytes = Array(AssociationFixture.file.utf8)

/// Live association files fetched from a real HTTPS server on 127.0.0.1 whose certificate a CA made by the test
/// signs (docs/rules.md, "Live association files").
@Suite(.timeLimit(.minutes(5)))
struct AssociationRefreshTests {
    /// A good fetch, cached, then a tap matched through the real matcher.
    @Test func goodFetchThenMatch() async throws {
        let fixture = try await AssociationFixture.start { _, _ in
            .status(200, headers: [("Content-Type", "text/html"), ("ETag", "\"v1\"")], body: fileBytes)
        }
        defer { Task { await fixture.stop() } }
        let fetcher = try fixture.fetcher()
        let cache = try fixture.cache()
        let (outcome, entry) = await AssociationRefresh.refresh(
            domain, previous: nil, ruleSet: fixture.ruleSet, fetcher: fetcher, cache: cache)
        try await fetcher.shutdown()
        #expect(outcome == .fetched(bytes: fileBytes.count))
        #expect(entry.etag == "\"v1\"")
        let request = try #require(fixture.server.requests.first)
        #expect(request.uri == "/.well-known/apple-app-site-association")
        #expect(request.header("Host") == "\(domain):\(fixture.server.port)")
        #expect(request.header("If-None-Match") == nil)
        let stored = try #require(try cache.cachedAssociation(for: domain))
        #expect(stored.body == Data(fileBytes))
        #expect(stored.lastError == nil)

        let store = RuleStore(
            sources: [], environment: [:], initial: fixture.ruleSet, logger: Logger(label: "test"))
        #expect(store.ruleSet.match(AssociationFixture.event("https://\(domain)/shop/1")).isEmpty)
        store.install(associations: AssociationRefresh.files(try cache.cachedAssociations()))
        #expect(store.ruleSet.match(AssociationFixture.event("https://\(domain)/shop/1")).map(\.rule.name) == ["shop"])
        #expect(store.ruleSet.match(AssociationFixture.event("https://\(domain)/buy/1")).isEmpty)
        #expect(store.ruleSet.match(AssociationFixture.event("https://other.test/shop/1")).isEmpty)
    }

    /// The validators come back as a conditional request; 304 confirms the cached copy.
    @Test func notModifiedWithValidators() async throws {
        let fixture = try await AssociationFixture.start { request, _ in
            if request.header("If-None-Match") == "\"v1\"" { return .status(304) }
            return .status(
                200, headers: [("ETag", "\"v1\""), ("Last-Modified", "Tue, 24 Nov 2026 10:00:00 GMT")],
                body: fileBytes)
        }
        defer { Task { await fixture.stop() } }
        let fetcher = try fixture.fetcher()
        let cache = try fixture.cache()
        let first = await AssociationRefresh.refresh(
            domain, previous: nil, ruleSet: fixture.ruleSet, fetcher: fetcher, cache: cache,
            now: Date(timeIntervalSince1970: 1_800_000_000))
        let second = await AssociationRefresh.refresh(
            domain, previous: first.entry, ruleSet: fixture.ruleSet, fetcher: fetcher, cache: cache,
            now: Date(timeIntervalSince1970: 1_800_000_100))
        try await fetcher.shutdown()
        #expect(first.outcome == .fetched(bytes: fileBytes.count))
        #expect(second.outcome == .notModified)
        let requests = fixture.server.requests
        #expect(requests.count == 2)
        #expect(requests.last?.header("If-None-Match") == "\"v1\"")
        #expect(requests.last?.header("If-Modified-Since") == "Tue, 24 Nov 2026 10:00:00 GMT")
        let stored = try #require(try cache.cachedAssociation(for: domain))
        #expect(stored.body == Data(fileBytes))
        #expect(stored.fetchedAt == Date(timeIntervalSince1970: 1_800_000_100))
    }

    /// Hostile or broken servers: each a one-line error naming the domain; nothing is cached.
    @Test(
        arguments: [
            (
                TestResponse.status(301, headers: [("Location", "https://elsewhere.test/aasa")]),
                "shop.example.test: https://shop.example.test:PORT/.well-known/apple-app-site-association answered "
                    + "HTTP 301 redirect to https://elsewhere.test/aasa: association files are not fetched through "
                    + "redirects, as on iOS"
            ),
            (
                TestResponse.status(404, body: Array("not here".utf8)),
                "shop.example.test: https://shop.example.test:PORT/.well-known/apple-app-site-association answered HTTP 404"
            ),
            (
                TestResponse.status(200, body: [UInt8](repeating: 0x20, count: 128 * 1024 + 1)),
                "shop.example.test: the association file is larger than 128 KB (131073 bytes announced), Apple's limit"
            ),
            (
                // No Content-Length: the body is cut off as it passes 128 KB.
                TestResponse.raw(
                    Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n30000\r\n".utf8)
                        + [UInt8](repeating: 0x20, count: 0x30000) + Array("\r\n0\r\n\r\n".utf8)),
                "shop.example.test: the association file is larger than 128 KB (more than 131072 bytes sent), "
                    + "Apple's limit"
            ),
            (
                TestResponse.status(200, body: Array("{\"applinks\": {\"details\": [".utf8)),
                "shop.example.test: not a valid AASA file: not valid JSON (for rule 'shop' at RULES:5:13)"
            ),
            (
                TestResponse.status(200, body: Array(#"{"applinks": {"details": "everything"}}"#.utf8)),
                "shop.example.test: not a valid AASA file: 'applinks.details' is not a list of objects "
                    + "(for rule 'shop' at RULES:5:13)"
            ),
            (
                TestResponse.status(
                    200,
                    body: Array(
                        #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": ["/shop/*"]}]}]}}"#
                            .utf8)),
                "shop.example.test: not a valid AASA file: a component object has a key of the wrong type "
                    + "(for rule 'shop' at RULES:5:13)"
            ),
        ] as [(TestResponse, String)])
    func hostileServer(response: TestResponse, expected: String) async throws {
        let fixture = try await AssociationFixture.start { _, _ in response }
        defer { Task { await fixture.stop() } }
        let fetcher = try fixture.fetcher()
        let cache = try fixture.cache()
        let (outcome, entry) = await AssociationRefresh.refresh(
            domain, previous: nil, ruleSet: fixture.ruleSet, fetcher: fetcher, cache: cache)
        try await fetcher.shutdown()
        let message =
            expected.replacingOccurrences(of: "PORT", with: "\(fixture.server.port)")
            .replacingOccurrences(of: "RULES", with: fixture.directory + "/rules/shop.yaml")
        #expect(outcome == .failed(message))
        #expect(entry.body == nil)
        let stored = try #require(try cache.cachedAssociation(for: domain))
        #expect(stored.body == nil)
        #expect(stored.lastError == message)
    }

    /// A server that never answers: the fetch gives up at its timeout.
    @Test func slowServerTimesOut() async throws {
        let fixture = try await AssociationFixture.start { _, _ in .hang }
        defer { Task { await fixture.stop() } }
        let fetcher = try fixture.fetcher(timeout: .milliseconds(700))
        let (outcome, _) = await AssociationRefresh.refresh(
            domain, previous: nil, ruleSet: fixture.ruleSet, fetcher: fetcher, cache: nil)
        try await fetcher.shutdown()
        // What ended the fetch is its own timeout, named as such (the server never answers).
        #expect(outcome == .failed("shop.example.test: no complete answer within 700 ms (timeout)"))
    }

    /// How a TLS connection to an association file's server fails.
    enum TLSFault: String, CaseIterable, Sendable {
        /// A certificate from a CA the fetcher does not trust.
        case untrustedCA
        /// A certificate from the trusted CA for another name: connecting elsewhere never relaxes the name check.
        case wrongName
        /// A trusted certificate on a server that speaks nothing newer than TLS 1.1: TLS 1.2 at least.
        case olderThanTLS12
    }

    @Test(arguments: TLSFault.allCases)
    func tlsFailure(_ fault: TLSFault) async throws {
        let stranger = try TestCertificateAuthority.make(name: "Stranger CA")
        defer { stranger.remove() }
        let fixture = try await AssociationFixture.start(
            certifiedName: fault == .wrongName ? "other.example.test" : domain,
            issuer: fault == .untrustedCA ? stranger : nil,
            maximumTLSVersion: fault == .olderThanTLS12 ? .tlsv11 : nil
        ) { _, _ in .status(200, body: fileBytes) }
        defer { Task { await fixture.stop() } }
        let fetcher = try fixture.fetcher()
        let (outcome, _) = await AssociationRefresh.refresh(
            domain, previous: nil, ruleSet: fixture.ruleSet, fetcher: fetcher, cache: nil)
        try await fetcher.shutdown()
        guard case .failed(let message) = outcome else {
            Issue.record("expected a TLS failure, got \(outcome)")
            return
        }
        if fault == .untrustedCA {
            #expect(message == "shop.example.test: TLS failed: certificate verify failed")
        } else {
            #expect(message.hasPrefix("shop.example.test: TLS failed: "), "\(message)")
        }
        #expect(!message.contains("\n"))
        #expect(fixture.server.requests.isEmpty)
    }

    /// A failed refresh keeps the last good copy in the cache and in force, and logs one warning.
    @Test func failedRefreshKeepsLastGoodCopy() async throws {
        let fixture = try await AssociationFixture.start { _, index in
            index == 0 ? .status(200, body: fileBytes) : .status(500, body: Array("down".utf8))
        }
        defer { Task { await fixture.stop() } }
        let lines = LogRecorder.Lines()
        let logger = Logger(label: "test") { _ in LogRecorder(lines: lines) }
        let store = RuleStore(sources: [], environment: [:], initial: fixture.ruleSet, logger: logger)
        let refresher = AssociationRefresher(
            store: store, cache: try fixture.cache(), fetcher: try fixture.fetcher(), logger: logger)
        await refresher.refresh(domain)
        #expect(store.ruleSet.match(AssociationFixture.event("https://\(domain)/shop/1")).count == 1)
        await refresher.refresh(domain)
        try await refresher.fetcher.shutdown()
        #expect(fixture.server.requests.count == 2)
        #expect(store.ruleSet.match(AssociationFixture.event("https://\(domain)/shop/1")).count == 1)
        let stored = try #require(try fixture.cache().cachedAssociation(for: domain))
        #expect(stored.body == Data(fileBytes))
        #expect(
            stored.lastError
                == "shop.example.test: https://shop.example.test:\(fixture.server.port)/.well-known/apple-app-site-association answered HTTP 500"
        )
        let warnings = lines.all.filter { $0.level == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.hasPrefix("aasa.refresh_failed: keeping the copy fetched 20") == true)
        #expect(warnings.first?.metadata["aasa.domain"] == domain)
        // A failure is retried after the retry interval, a success after the interval.
        #expect(refresher.isDue(domain, now: Date()) == false)
        #expect(refresher.isDue(domain, now: Date().addingTimeInterval(15 * 60 + 1)))
    }

    /// A rules reload reads the rules files again and keeps the fetched files in force.
    @Test func reloadKeepsTheFetchedFiles() async throws {
        let fixture = try await AssociationFixture.start { _, _ in .status(200) }
        defer { Task { await fixture.stop() } }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let store = RuleStore(
            sources: [fixture.directory + "/rules"], environment: [:], initial: fixture.ruleSet, logger: logger)
        store.install(associations: [domain: AssociationFile(data: Data(fileBytes), fetchedAt: Date())])
        let event = AssociationFixture.event("https://\(domain)/shop/1")
        #expect(store.ruleSet.match(event).count == 1)
        #expect(store.reload())
        #expect(store.ruleSet.match(event).count == 1)
        store.install(associations: [:])
        #expect(store.ruleSet.match(event).isEmpty)
    }

    /// The service fetches in the background as soon as it runs; the store takes the components without the
    /// rules being read again; a copy written by `tagrouter aasa refresh` is picked up.
    @Test func refresherServiceFetchesInTheBackground() async throws {
        let fixture = try await AssociationFixture.start { _, _ in .status(200, body: fileBytes) }
        defer { Task { await fixture.stop() } }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let store = RuleStore(sources: [], environment: [:], initial: fixture.ruleSet, logger: logger)
        let refresher = AssociationRefresher(
            store: store, cache: try fixture.cache(), fetcher: try fixture.fetcher(), tick: .milliseconds(50),
            logger: logger)
        let event = AssociationFixture.event("https://\(domain)/shop/1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await refresher.run() }
            let deadline = ContinuousClock.now + .seconds(20)
            while store.ruleSet.match(event).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(store.ruleSet.match(event).count == 1)
            #expect(fixture.server.requests.count == 1)
            // Another copy, written to the cache from outside (as `tagrouter aasa refresh` does).
            let other =
                #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": "/other/*"}]}]}}"#
            try fixture.cache().storeAssociation(
                Data(other.utf8), etag: nil, lastModified: nil, for: domain, at: Date())
            let otherEvent = AssociationFixture.event("https://\(domain)/other/1")
            while store.ruleSet.match(otherEvent).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(store.ruleSet.match(otherEvent).count == 1)
            #expect(store.ruleSet.match(event).isEmpty)
            group.cancelAll()
        }
    }

    /// Rules that name no live domain leave the refresher asleep, fetching nothing; the reload that adds one
    /// wakes it, and it fetches the new domain at once.
    @Test func aReloadThatAddsALiveDomainWakesTheRefresher() async throws {
        let fixture = try await AssociationFixture.start { _, _ in .status(200, body: fileBytes) }
        defer { Task { await fixture.stop() } }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let rules = fixture.directory + "/rules/shop.yaml"
        try Data("version: 1\nrules:\n  - { name: plain, match: { uid: [\"04A1\"] }, run: [/bin/true] }\n".utf8)
            .write(to: URL(fileURLWithPath: rules))
        let store = RuleStore(
            sources: [fixture.directory + "/rules"], environment: [:],
            initial: try RuleSet.load(sources: [fixture.directory + "/rules"], environment: [:]).get(), logger: logger)
        #expect(store.ruleSet.liveDomains.isEmpty)
        let refresher = AssociationRefresher(
            store: store, cache: try fixture.cache(), fetcher: try fixture.fetcher(), tick: .milliseconds(50),
            logger: logger)
        let event = AssociationFixture.event("https://\(domain)/shop/1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await refresher.run() }
            try await Task.sleep(for: .milliseconds(300))
            #expect(fixture.server.requests.isEmpty)
            try Data(AssociationFixture.rules.utf8).write(to: URL(fileURLWithPath: rules))
            #expect(store.reload())
            let deadline = ContinuousClock.now + .seconds(20)
            while store.ruleSet.match(event).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(store.ruleSet.match(event).count == 1)
            #expect(fixture.server.requests.count == 1)
            group.cancelAll()
        }
    }
}
