public import Foundation

/// Where a host takes bundles from (`--bundle-from`; docs/fleet.md, "Sources"): an HTTPS URL, or plain HTTP to a
/// loopback address (a test, a local mirror: the signature protects the content, TLS only its privacy).
public struct BundleSource: Sendable, Hashable, CustomStringConvertible {
    /// The URL polled.
    public let url: URL

    /// Parses and checks a source.
    /// - Parameter text: the URL as given.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/source`` naming what is wrong.
    public init(_ text: String) throws(BundleError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, let url = components.url
        else {
            throw BundleError(.source, "'\(text)': not a URL like https://rules.example/door.bundle")
        }
        switch scheme {
        case "https":
            break
        case "http":
            guard Self.isLoopback(host) else {
                throw BundleError(
                    .source,
                    "'\(text)': plain HTTP only to a loopback address (127.0.0.1, ::1, localhost); use https://")
            }
        default:
            throw BundleError(
                .source, "'\(text)': the scheme is \(scheme); a bundle source is https:// (or http:// to loopback)")
        }
        if components.user != nil || components.password != nil {
            throw BundleError(.source, "'\(text)': credentials in the URL are not accepted")
        }
        self.url = url
    }

    /// Whether a host name is a loopback address.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The URL.
    public var description: String { url.absoluteString }
}
