public import BundleFormat
public import Foundation

/// Where a host takes bundles from (`--bundle-from`; docs/fleet.md, "Sources"): an HTTPS URL, or plain HTTP to a
/// loopback address (a test, a local mirror: the signature protects the content, TLS only its privacy); or an MQTT
/// topic's retained message, `mqtts://HOST[:PORT]/TOPIC` (or `mqtt://` to a loopback address, by the same rule).
public struct BundleSource: Sendable, Hashable, CustomStringConvertible {
    /// The credentials an MQTT source connects with (`TAGROUTER_BUNDLE_MQTT_USERNAME`, `…_PASSWORD`).
    public struct Credentials: Sendable, Hashable {
        /// The user name, if the broker wants one.
        public var username: String?
        /// The password, if the broker wants one.
        public var password: String?

        /// Creates credentials.
        /// - Parameters:
        ///   - username: the user name.
        ///   - password: the password.
        public init(username: String? = nil, password: String? = nil) {
            self.username = username
            self.password = password
        }
    }

    /// The topic an MQTT source without a path reads: `tagrouter/fleet/bundle`.
    public static let defaultTopic = "tagrouter/fleet/bundle"

    /// The URL polled, or the broker's.
    public let url: URL
    /// For an MQTT source, the topic whose retained message is the bundle; nil for HTTP.
    public let topic: String?
    /// The host of the URL.
    public let host: String
    /// The port (for MQTT: 1883, or 8883 with TLS, unless given).
    public let port: Int

    /// Whether the bundle comes from an MQTT topic.
    public var isMQTT: Bool { topic != nil }
    /// Whether the connection uses TLS (`https`, `mqtts`).
    public var usesTLS: Bool { url.scheme == "https" || url.scheme == "mqtts" }

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
        case "https", "mqtts":
            break
        case "http", "mqtt":
            guard Self.isLoopback(host) else {
                throw BundleError(
                    .source,
                    "'\(text)': plain \(scheme.uppercased()) only to a loopback address (127.0.0.1, ::1, localhost); "
                        + "use \(scheme)s://")
            }
        default:
            throw BundleError(
                .source,
                "'\(text)': the scheme is \(scheme); a bundle source is https:// (or http:// to loopback), or "
                    + "mqtts:// (or mqtt:// to loopback)")
        }
        if components.user != nil || components.password != nil {
            throw BundleError(.source, "'\(text)': credentials in the URL are not accepted")
        }
        self.url = url
        self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if scheme.hasPrefix("mqtt") {
            if components.query != nil || components.fragment != nil {
                throw BundleError(.source, "'\(text)': an MQTT source has a topic as its path, no query or fragment")
            }
            let path = String(components.path.drop { $0 == "/" })
            let topic = path.isEmpty ? Self.defaultTopic : path
            if topic.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) || topic.hasSuffix("/") {
                throw BundleError(
                    .source, "'\(text)': the topic '\(topic)' has a wildcard or an empty level; name one topic")
            }
            self.topic = topic
            port = components.port ?? (scheme == "mqtts" ? 8883 : 1883)
        } else {
            topic = nil
            port = components.port ?? (scheme == "https" ? 443 : 80)
        }
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
