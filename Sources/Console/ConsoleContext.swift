public import Hummingbird

/// The console's request context: Hummingbird's, with the client's address (for the sign-in rate limit).
public struct ConsoleContext: RequestContext {
    /// Hummingbird's part.
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address; `unknown` when the channel has none (Hummingbird's test client).
    public let remoteAddress: String

    /// Creates the context of one request.
    /// - Parameter source: the connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
