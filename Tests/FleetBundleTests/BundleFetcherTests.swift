import BundleFormat
import BundleSources
import FleetBundle
import Foundation
import HTTPTestSupport
import Testing

/// Sources (docs/fleet.md, "Sources"): which URLs a host accepts, and fetching with `If-None-Match` from a real
/// HTTP server on 127.0.0.1 and a real HTTPS one with a private CA.
@Suite struct BundleFetcherTests {
    @Test(arguments: [
        ("https://rules.example/door.trb", nil),
        ("http://127.0.0.1:8080/b.trb", nil),
        ("http://localhost/b.trb", nil),
        ("http://[::1]:9/b.trb", nil),
        (
            "http://rules.example/b.trb",
            "'http://rules.example/b.trb': plain HTTP only to a loopback address (127.0.0.1, ::1, localhost); use https://"
        ),
        (
            "ftp://rules.example/b.trb",
            "'ftp://rules.example/b.trb': the scheme is ftp; a bundle source is https:// (or http:// to loopback), or "
                + "mqtts:// (or mqtt:// to loopback)"
        ),
        ("mqtts://broker.example/tagrouter/fleet/bundle", nil),
        ("mqtt://127.0.0.1:1883", nil),
        (
            "mqtt://broker.example/t",
            "'mqtt://broker.example/t': plain MQTT only to a loopback address (127.0.0.1, ::1, localhost); use mqtts://"
        ),
        (
            "mqtts://broker.example/tagrouter/+/bundle",
            "'mqtts://broker.example/tagrouter/+/bundle': the topic 'tagrouter/+/bundle' has a wildcard or an empty "
                + "level; name one topic"
        ),
        (
            "https://user:pw@rules.example/b",
            "'https://user:pw@rules.example/b': credentials in the URL are not accepted"
        ),
        ("rules.example", "'rules.example': not a URL like https://rules.example/door.bundle"),
    ])
    func sources(text: String, problem: String?) {
        do {
            _ = try BundleSource(text)
            #expect(problem == nil)
        } catch {
            #expect(error.message == problem)
        }
    }

    @Test(arguments: [
        ("mqtts://broker.example", "tagrouter/fleet/bundle", 8883),
        ("mqtt://localhost:1999/site/rules", "site/rules", 1999),
        ("mqtt://127.0.0.1", "tagrouter/fleet/bundle", 1883),
    ])
    func mqttSourcesNameATopic(text: String, topic: String, port: Int) throws {
        let source = try BundleSource(text)
        #expect(source.isMQTT && source.topic == topic && source.port == port)
    }

    @Test func fetchesThenAsksIfNoneMatch() async throws {
        let server = try await HTTPTestServer.start { request, _ in
            if request.header("If-None-Match") == "\"v1\"" { return .status(304) }
            return .status(200, headers: [("ETag", "\"v1\"")], body: Array("bundle".utf8))
        }
        let fetcher = try BundleFetcher()
        let source = try BundleSource("http://127.0.0.1:\(server.port)/b.trb")
        let first = try await fetcher.fetch(source, etag: nil)
        #expect(first == .fetched(Data("bundle".utf8), etag: "\"v1\""))
        let second = try await fetcher.fetch(source, etag: "\"v1\"")
        #expect(second == .notModified)
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"v1\""])
        try await fetcher.shutdown()
        try await server.stop()
    }

    @Test func errorStatusAndRedirectAreNamed() async throws {
        let server = try await HTTPTestServer.start { _, index in
            index == 0 ? .status(404) : .status(302, headers: [("Location", "https://elsewhere.example/")])
        }
        let fetcher = try BundleFetcher()
        let source = try BundleSource("http://127.0.0.1:\(server.port)/b.trb")
        let missing = await #expect(throws: BundleError.self) { try await fetcher.fetch(source, etag: nil) }
        #expect(missing?.message == "\(source): answered HTTP 404")
        let moved = await #expect(throws: BundleError.self) { try await fetcher.fetch(source, etag: nil) }
        #expect(moved?.message == "\(source): answered HTTP 302 (redirect to https://elsewhere.example/, not followed)")
        try await fetcher.shutdown()
        try await server.stop()
    }

    @Test func httpsWithAPrivateCA() async throws {
        let authority = try TestCertificateAuthority.make()
        defer { authority.remove() }
        let server = try await HTTPTestServer.start(tls: try authority.issue(for: "localhost")) { _, _ in
            .status(200, body: Array("signed".utf8))
        }
        let source = try BundleSource("https://localhost:\(server.port)/b.trb")
        let untrusting = try BundleFetcher()
        let refused = await #expect(throws: BundleError.self) { try await untrusting.fetch(source, etag: nil) }
        #expect(refused?.code == .source)
        let trusting = try BundleFetcher(extraTrustAnchors: authority.certificate)
        #expect(try await trusting.fetch(source, etag: nil) == .fetched(Data("signed".utf8), etag: nil))
        try await untrusting.shutdown()
        try await trusting.shutdown()
        try await server.stop()
    }
}
