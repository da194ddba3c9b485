/// The one error type of LiveAssociations: a domain's association file could not be fetched (TLS, timeout,
/// status, redirect, size, trust anchor) or the fetch is configured wrongly. Its description is one sentence
/// naming the domain or the variable, and what went wrong.
public struct AssociationFetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The full sentence.
    public var message: String

    /// Creates an error.
    /// - Parameter message: one sentence naming what failed and where.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
