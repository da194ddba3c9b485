/// The `console:` block of a rules file: the router's web console (docs/console.md). At most one in a rule set.
/// The address and the TLS files are read when the router starts (`--console` and its TLS options win over
/// them); the password hashes at every sign-in, so a reload changes it.
public struct ConsoleBlock: Sendable, Hashable {
    /// `address: HOST:PORT`: serve the console there.
    public var address: (host: String, port: Int)?
    /// `certificate`: the TLS certificate chain (PEM file).
    public var certificate: String?
    /// `key`: the TLS private key (PEM file).
    public var key: String?
    /// `passwordHash`: the bcrypt hash `tagrouter console-password` prints.
    public var passwordHash: String?
    /// `viewerPasswordHash`: the bcrypt hash `tagrouter console-password --viewer` prints; it signs in a viewer,
    /// who reads every page and changes nothing.
    public var viewerPasswordHash: String?
    /// Where the block is written.
    public var location: SourceLocation

    /// Creates a block.
    /// - Parameter location: where it is written.
    public init(location: SourceLocation) {
        self.location = location
    }

    public static func == (left: ConsoleBlock, right: ConsoleBlock) -> Bool {
        left.address?.host == right.address?.host && left.address?.port == right.address?.port
            && left.certificate == right.certificate && left.key == right.key
            && left.passwordHash == right.passwordHash && left.viewerPasswordHash == right.viewerPasswordHash
            && left.location == right.location
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(address?.host)
        hasher.combine(address?.port)
        hasher.combine(certificate)
        hasher.combine(key)
        hasher.combine(passwordHash)
        hasher.combine(viewerPasswordHash)
        hasher.combine(location)
    }
}
