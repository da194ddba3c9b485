public import ArgumentParser
import Foundation

/// A broker given on the command line (`fleet status --broker`, `bundle publish --broker`): `HOST`, `HOST:PORT`,
/// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (TLS); port 1883, or 8883 with TLS, unless given.
public struct BrokerAddress: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The port.
    public var port: Int
    /// Whether the connection uses TLS.
    public var usesTLS: Bool

    /// Parses a broker.
    /// - Parameter argument: the broker as given.
    /// - Returns: nil when it is not one of the forms above.
    public init?(argument: String) {
        if argument.contains("://") {
            guard let components = URLComponents(string: argument), let host = components.host, !host.isEmpty,
                let scheme = components.scheme?.lowercased(), scheme == "mqtt" || scheme == "mqtts",
                components.path.isEmpty || components.path == "/", components.query == nil, components.user == nil
            else { return nil }
            usesTLS = scheme == "mqtts"
            self.host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            port = components.port ?? (usesTLS ? 8883 : 1883)
            return
        }
        usesTLS = false
        if let address = HostAndPort(argument: argument), !argument.hasSuffix("]") {
            host = address.host
            port = Int(address.port)
        } else {
            guard !argument.isEmpty, !argument.contains(where: { $0 == ":" || $0 == "/" || $0.isWhitespace }) else {
                return nil
            }
            host = argument
            port = 1883
        }
    }

    /// `mqtt://HOST:PORT` or `mqtts://HOST:PORT`.
    public var description: String {
        "\(usesTLS ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
