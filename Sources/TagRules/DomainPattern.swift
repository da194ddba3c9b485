import AASAPatterns

/// One `domains` entry: an exact host or `*.` followed by a parent domain, optionally with a port.
public struct DomainPattern: Sendable, Hashable, CustomStringConvertible {
    /// The host, lower-case ASCII (punycode for IDN), without the `*.` of a wildcard entry.
    public var host: String
    /// Whether the entry is `*.host`: any subdomain at any depth, not `host` itself.
    public var isWildcard: Bool
    /// The port the URI must use, if the entry names one.
    public var port: Int?

    /// The entry as it could be written.
    public var description: String {
        (isWildcard ? "*." : "") + host + (port.map { ":\($0)" } ?? "")
    }

    /// Whether a URI host (normalized) and its effective port match this entry.
    func matches(host candidate: Substring, port candidatePort: Int?) -> Bool {
        if let port, port != candidatePort { return false }
        if isWildcard {
            // A byte comparison: both are lower-case ASCII, and no string is built per check.
            let suffix = host.utf8
            let whole = candidate.utf8
            guard whole.count > suffix.count + 1 else { return false }
            let dot = whole.index(whole.endIndex, offsetBy: -(suffix.count + 1))
            return whole[dot] == UInt8(ascii: ".") && whole[whole.index(after: dot)...].elementsEqual(suffix)
        }
        return candidate.utf8.elementsEqual(host.utf8)
    }
}
