public import ArgumentParser

/// An address given as `HOST:PORT` (`--metrics`, `--vpcd`): `[::1]:9090` for IPv6, `:9090` for 127.0.0.1.
public struct HostAndPort: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The host name or address, brackets of an IPv6 address removed; 127.0.0.1 when none was given.
    public var host: String
    /// The port.
    public var port: UInt16

    /// Creates an address.
    /// - Parameters:
    ///   - host: the host.
    ///   - port: the port.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`.
    /// - Parameter argument: the address as given.
    /// - Returns: nil when it is not `HOST:PORT` with a port from 0 to 65535.
    public init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), let port = UInt16(argument[argument.index(after: colon)...])
        else { return nil }
        var host = String(argument[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(host: host.isEmpty ? "127.0.0.1" : host, port: port)
    }

    /// `HOST:PORT`, an IPv6 address in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
