import AsyncHTTPClient
public import BundleFormat
import Deadline
public import FleetBundle
public import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches bundles from their sources with AsyncHTTPClient, with the TLS settings webhooks use (system trust store,
/// TLS 1.2 at least, redirects refused), plus the extra anchors of `TAGROUTER_BUNDLE_CA`; conditional requests
/// with `If-None-Match`, bodies bounded by ``SignedBundle/maximumSize`` (docs/fleet.md, "Sources").
public final class BundleFetcher: Sendable {
    /// What a fetch brought.
    public enum Answer: Sendable, Equatable {
        /// A body (HTTP 200) and its `ETag`.
        case fetched(Data, etag: String?)
        /// HTTP 304: nothing new since the `ETag` sent.
        case notModified
    }

    let client: HTTPClient
    let timeout: Duration
    let userAgent: String

    /// Creates a fetcher; call ``shutdown()`` when done.
    /// - Parameters:
    ///   - extraTrustAnchors: a PEM file of certificates trusted besides the system's, or nil.
    ///   - timeout: how long one fetch may take in all.
    ///   - userAgent: the `User-Agent` header.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/source`` when the anchors cannot be read.
    public init(extraTrustAnchors: String? = nil, timeout: Duration = .seconds(30), userAgent: String = "tagrouter")
        throws(BundleError)
    {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let path = extraTrustAnchors {
            let certificates = (try? NIOSSLCertificate.fromPEMFile(path)) ?? []
            guard !certificates.isEmpty else {
                throw BundleError(.source, "TAGROUTER_BUNDLE_CA \(path): no PEM certificate can be read from the file")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.idleTimeout = .seconds(1)
        pool.retryConnectionEstablishment = false
        configuration.connectionPool = pool
        configuration.timeout = .init(connect: .seconds(10))
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// Closes the fetcher's connections.
    /// - Throws: an error from the HTTP client's shutdown.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Fetches a source's bundle.
    /// - Parameters:
    ///   - source: the source.
    ///   - etag: the `ETag` of the last answer, sent as `If-None-Match`.
    /// - Returns: the body, or that nothing changed.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/source``: one sentence naming the URL.
    public func fetch(_ source: BundleSource, etag: String?) async throws(BundleError) -> Answer {
        let limit = timeout
        do {
            guard let answer = try await withDeadline(limit, { try await self.request(source, etag: etag) }) else {
                throw BundleError(.source, "\(source): no complete answer within \(limit) (timeout)")
            }
            return answer
        } catch let error as BundleError {
            throw error
        } catch is CancellationError {
            throw BundleError(.source, "\(source): cancelled")
        } catch {
            throw BundleError(.source, "\(source): \(Self.printable("\(error)"))")
        }
    }

    private func request(_ source: BundleSource, etag: String?) async throws -> Answer {
        var request = HTTPClientRequest(url: source.url.absoluteString)
        request.headers.add(name: "User-Agent", value: userAgent)
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        let response = try await client.execute(request, timeout: .seconds(Int64(timeout.components.seconds)))
        let status = Int(response.status.code)
        if status == 304, etag != nil { return .notModified }
        guard status == 200 else {
            let location = response.headers.first(name: "Location").map {
                " (redirect to \(Self.printable($0)), not followed)"
            }
            throw BundleError(.source, "\(source): answered HTTP \(status)\(location ?? "")")
        }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init),
            length > BundleLayout.maximumSize
        {
            throw BundleError(.tooLarge, "\(source): \(length) bytes announced, more than a bundle may take")
        }
        var body = Data()
        for try await chunk in response.body {
            body.append(contentsOf: chunk.readableBytesView)
            guard body.count <= BundleLayout.maximumSize else {
                throw BundleError(.tooLarge, "\(source): more bytes sent than a bundle may take")
            }
        }
        return .fetched(body, etag: response.headers.first(name: "ETag"))
    }

    /// Text made one line and bounded: server-supplied bits never break a log line.
    /// - Parameter text: the text.
    /// - Returns: one line of at most 300 characters.
    public static func printable(_ text: String) -> String {
        let flat = String(text.map { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true ? " " : $0 })
        return flat.count > 300 ? String(flat.prefix(300)) + "…" : flat
    }
}
