public import TagRules

/// Where and how the web console listens (docs/console.md): `tagrouter run --console ADDRESS:PORT`.
public struct ConsoleConfiguration: Sendable, Hashable {
    /// The address to listen on: loopback unless TLS is configured.
    public var host: String
    /// The port; 0 for any free one.
    public var port: Int
    /// The TLS certificate chain (PEM), required with ``keyFile`` on any address but loopback.
    public var certificateFile: String?
    /// The TLS private key (PEM).
    public var keyFile: String?
    /// The state directory: its database keeps the one-time logins, and the console writes its address there for
    /// `tagrouter console-login`.
    public var stateDirectory: String
    /// How long a session lasts after sign-in, in seconds.
    public var sessionLifetime: Int = 12 * 3600

    /// Creates a configuration.
    /// - Parameters:
    ///   - host: the address.
    ///   - port: the port.
    ///   - stateDirectory: the router's state directory.
    ///   - certificateFile: the TLS certificate chain.
    ///   - keyFile: the TLS private key.
    public init(
        host: String, port: Int, stateDirectory: String, certificateFile: String? = nil, keyFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.stateDirectory = stateDirectory
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// Whether the console is served over TLS.
    public var usesTLS: Bool { certificateFile != nil && keyFile != nil }

    /// Whether an address only reaches this machine: `127.0.0.0/8`, `::1` or `localhost`.
    /// - Parameter host: the address.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Checks that the console is safe to start: a non-loopback address needs both TLS files; one TLS file needs
    /// the other.
    /// - Throws: ``ConsoleError`` naming the setting to give.
    public func validate() throws(ConsoleError) {
        if (certificateFile == nil) != (keyFile == nil) {
            throw ConsoleError(
                "the console's TLS needs a certificate and a key (--console-certificate and --console-key, or "
                    + "certificate: and key: in the console: block); only one is given")
        }
        if !Self.isLoopback(host), !usesTLS {
            throw ConsoleError(
                "the console's address \(host):\(port) is not loopback: the console refuses to serve it without TLS; "
                    + "give --console-certificate FILE and --console-key FILE (or certificate: and key: in the "
                    + "console: block), or listen on 127.0.0.1 behind a reverse proxy (docs/operations.md, \"The web "
                    + "console\")")
        }
    }

    /// The console's own address as a URL, with the port it was bound to.
    /// - Parameter boundPort: the port actually bound (with port 0).
    public func url(boundPort: Int) -> String {
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(usesTLS ? "https" : "http")://\(shownHost):\(boundPort)"
    }
}

/// Why the console cannot start or do what it was asked: one sentence a user can act on.
public struct ConsoleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sentence.
    public var description: String

    /// Creates an error.
    /// - Parameter description: the sentence.
    public init(_ description: String) {
        self.description = description
    }
}

/// Everything `tagrouter run` gives the console: what its command line says (`--console` and the TLS options,
/// which win over the rules' `console:` block), and the command line's code for the tags file and the rule tools
/// (``ConsoleTagsEditing``, ``ConsoleRuleTools``).
public struct ConsoleSettings: Sendable {
    /// `--console HOST:PORT`.
    public var address: (host: String, port: Int)?
    /// `--console-certificate`.
    public var certificateFile: String?
    /// `--console-key`.
    public var keyFile: String?
    /// The router's state directory.
    public var stateDirectory: String
    /// The tags file's editor.
    public var tags: any ConsoleTagsEditing
    /// `check` and `match --explain`.
    public var ruleTools: any ConsoleRuleTools

    /// Creates settings.
    /// - Parameters:
    ///   - address: `--console`.
    ///   - certificateFile: `--console-certificate`.
    ///   - keyFile: `--console-key`.
    ///   - stateDirectory: the state directory.
    ///   - tags: the tags file's editor.
    ///   - ruleTools: `check` and `match --explain`.
    public init(
        address: (host: String, port: Int)?, certificateFile: String?, keyFile: String?, stateDirectory: String,
        tags: any ConsoleTagsEditing, ruleTools: any ConsoleRuleTools
    ) {
        self.address = address
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.stateDirectory = stateDirectory
        self.tags = tags
        self.ruleTools = ruleTools
    }

    /// Where and how the console listens: the command line's options over the rules' `console:` block; nil when
    /// neither gives an address (the console is off).
    /// - Parameter block: the rules' `console:` block.
    public func configuration(with block: ConsoleBlock?) -> ConsoleConfiguration? {
        guard let address = address ?? block?.address else { return nil }
        return ConsoleConfiguration(
            host: address.host, port: address.port, stateDirectory: stateDirectory,
            certificateFile: certificateFile ?? block?.certificate, keyFile: keyFile ?? block?.key)
    }
}
