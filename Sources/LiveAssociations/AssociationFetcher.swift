import AsyncHTTPClient
import Deadline
public import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches a domain's apple-app-site-association file as iOS does (docs/rules.md, "Live association files"):
/// `https://DOMAIN/.well-known/apple-app-site-association`, certificate verified against the system's trust
/// store (plus the extra anchors of ``Configuration/extraTrustAnchors``), redirects refused, at most 128 KB,
/// within one total timeout, `Content-Type` ignored. Conditional requests use the cached validators.
public final class AssociationFetcher: Sendable {
    /// The well-known path iOS fetches.
    public static let wellKnownPath = "/.well-known/apple-app-site-association"
    /// The largest body accepted: Apple's 128 KB.
    public static let maxBytes = 128 * 1024

    /// How the fetcher connects.
    public struct Configuration: Sendable {
        /// The time one fetch may take in all: connecting, TLS, the answer and its body.
        public var timeout: Duration = .seconds(10)
        /// A PEM file of certificates trusted in addition to the system's (`TAGROUTER_AASA_CA`): for domains
        /// served with a private CA. It adds anchors; it never turns verification off.
        public var extraTrustAnchors: String?
        /// Where to connect for a domain instead of its DNS address and port 443 (`TAGROUTER_AASA_CONNECT_TO`,
        /// `domain=host:port`, for tests and staging). The certificate is still verified for the domain, which is
        /// also the TLS server name.
        public var connectTo: [String: Endpoint] = [:]
        /// The `User-Agent` header.
        public var userAgent = "tagrouter"

        /// A host and port to connect to.
        public struct Endpoint: Sendable, Hashable {
            /// The host name or address.
            public var host: String
            /// The port.
            public var port: Int
        }

        /// The default configuration.
        public init() {}

        /// The configuration the environment asks for: `TAGROUTER_AASA_CA=/path/ca.pem` and
        /// `TAGROUTER_AASA_CONNECT_TO=domain=host:port[,domain=host:port…]`.
        /// - Parameter environment: the process environment.
        /// - Returns: the configuration.
        /// - Throws: ``AssociationFetchError`` naming the variable that is malformed.
        public static func from(environment: [String: String]) throws(AssociationFetchError) -> Configuration {
            var configuration = Configuration()
            if let path = environment["TAGROUTER_AASA_CA"], !path.isEmpty {
                configuration.extraTrustAnchors = path
            }
            for entry in (environment["TAGROUTER_AASA_CONNECT_TO"] ?? "").split(separator: ",") {
                let parts = entry.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let colon = parts[1].lastIndex(of: ":"),
                    let port = Int(parts[1][parts[1].index(after: colon)...]), (1...65535).contains(port),
                    colon > parts[1].startIndex
                else {
                    throw AssociationFetchError(
                        "TAGROUTER_AASA_CONNECT_TO: '\(entry)' is not domain=host:port (like shop.example.test=127.0.0.1:8443)"
                    )
                }
                configuration.connectTo[parts[0].lowercased()] = Endpoint(
                    host: String(parts[1][..<colon]), port: port)
            }
            return configuration
        }
    }

    /// What a fetch brought.
    public enum Answer: Sendable, Equatable {
        /// A new body (HTTP 200) and its validators.
        case fetched(Data, etag: String?, lastModified: String?)
        /// HTTP 304: the cached copy is current.
        case notModified
    }

    let client: HTTPClient
    let configuration: Configuration

    /// Creates a fetcher; call ``shutdown()`` when done.
    /// - Parameter configuration: how to connect.
    /// - Throws: ``AssociationFetchError`` when the extra trust anchors cannot be read.
    public init(configuration: Configuration) throws(AssociationFetchError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let path = configuration.extraTrustAnchors {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(path)
            } catch {
                throw AssociationFetchError(
                    "TAGROUTER_AASA_CA \(path): cannot read PEM certificates (\(error))")
            }
            guard !certificates.isEmpty else {
                throw AssociationFetchError("TAGROUTER_AASA_CA \(path): no PEM certificate in the file")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        var http = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.idleTimeout = .seconds(1)
        // One connection attempt per fetch: the refresher's schedule is the retry.
        pool.retryConnectionEstablishment = false
        http.connectionPool = pool
        http.timeout = .init(connect: Self.timeAmount(configuration.timeout))
        http.dnsOverride = configuration.connectTo.mapValues(\.host)
        http.decompression = .disabled
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: http)
        self.configuration = configuration
    }

    /// Closes the fetcher's connections.
    /// - Throws: an error from the HTTP client's shutdown.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// The URL fetched for a domain (with the port of ``Configuration/connectTo`` when it names one).
    /// - Parameter domain: the domain.
    /// - Returns: the URL.
    public func url(for domain: String) -> String {
        Self.url(for: domain, configuration: configuration)
    }

    /// The URL fetched for a domain under a configuration.
    /// - Parameters:
    ///   - domain: the domain.
    ///   - configuration: the configuration (its ``Configuration/connectTo`` may name a port).
    /// - Returns: the URL.
    public static func url(for domain: String, configuration: Configuration) -> String {
        let port = configuration.connectTo[domain].map { ":\($0.port)" } ?? ""
        return "https://\(domain)\(port)\(wellKnownPath)"
    }

    /// Fetches one domain's file.
    /// - Parameters:
    ///   - domain: the domain (lower-case, punycode).
    ///   - etag: the cached copy's `ETag`, sent as `If-None-Match`.
    ///   - lastModified: the cached copy's `Last-Modified`, sent as `If-Modified-Since`.
    /// - Returns: the new body, or that the cached copy is current.
    /// - Throws: ``AssociationFetchError``: one sentence naming the domain and what went wrong.
    public func fetch(_ domain: String, etag: String?, lastModified: String?) async throws(AssociationFetchError)
        -> Answer
    {
        let timeout = configuration.timeout
        do {
            guard
                let answer = try await withDeadline(
                    timeout,
                    {
                        try await self.request(domain, etag: etag, lastModified: lastModified)
                    })
            else {
                throw AssociationFetchError("\(domain): no complete answer within \(Self.seconds(timeout)) (timeout)")
            }
            return answer
        } catch let error as AssociationFetchError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            // The client's own deadline is the same timeout; on a loaded machine it can fire first. Same sentence.
            throw AssociationFetchError(
                "\(domain): no complete answer within \(Self.seconds(timeout)) (timeout)")
        } catch {
            throw AssociationFetchError("\(domain): \(Self.describe(error))")
        }
    }

    private func request(_ domain: String, etag: String?, lastModified: String?) async throws -> Answer {
        var request = HTTPClientRequest(url: url(for: domain))
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        let response = try await client.execute(request, timeout: Self.timeAmount(configuration.timeout))
        let status = Int(response.status.code)
        if status == 304, etag != nil || lastModified != nil { return .notModified }
        guard status == 200 else {
            var detail = "HTTP \(status)"
            if (300...399).contains(status) {
                let target = response.headers.first(name: "Location").map { " to \(Self.printable($0))" } ?? ""
                detail += " redirect\(target): association files are not fetched through redirects, as on iOS"
            }
            throw AssociationFetchError("\(domain): \(url(for: domain)) answered \(detail)")
        }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > Self.maxBytes {
            throw AssociationFetchError(Self.tooLarge(domain, "\(length) bytes announced"))
        }
        var body = Data()
        for try await chunk in response.body {
            body.append(contentsOf: chunk.readableBytesView)
            guard body.count <= Self.maxBytes else {
                throw AssociationFetchError(Self.tooLarge(domain, "more than \(Self.maxBytes) bytes sent"))
            }
        }
        return .fetched(
            body, etag: response.headers.first(name: "ETag"),
            lastModified: response.headers.first(name: "Last-Modified"))
    }

    private static func tooLarge(_ domain: String, _ what: String) -> String {
        "\(domain): the association file is larger than 128 KB (\(what)), Apple's limit"
    }

    /// One line for an error of the HTTP client or of TLS.
    static func describe(_ error: any Error) -> String {
        let text: String
        let type = String(reflecting: Swift.type(of: error))
        if type.hasPrefix("NIOSSL.") {
            // BoringSSL's reason (`…OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at file:line`) in words.
            let raw = "\(error)"
            if let marker = raw.range(of: "OPENSSL_internal:") {
                let reason = raw[marker.upperBound...].prefix { $0.isLetter || $0 == "_" }
                text = "TLS failed: " + reason.lowercased().replacingOccurrences(of: "_", with: " ")
            } else {
                text = "TLS failed: \(raw)"
            }
        } else if let client = error as? HTTPClientError {
            text =
                switch client {
                case .connectTimeout: "cannot connect (timeout)"
                case .deadlineExceeded, .readTimeout: "no complete answer in time (timeout)"
                default: "\(client)"
                }
        } else {
            text = "\(error)"
        }
        return printable(text)
    }

    /// Text made one line and bounded: server-supplied bits never break a log line.
    static func printable(_ text: String) -> String {
        let flat = String(text.map { $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true ? " " : $0 })
        return flat.count > 300 ? String(flat.prefix(300)) + "…" : flat
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        .milliseconds(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
