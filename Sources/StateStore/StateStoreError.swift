/// The one error type of StateStore: the state database could not be opened, migrated, read or written, or a
/// delivery is malformed. Its description is one sentence naming the database file and the cause.
public struct StateStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The full sentence: what failed and where.
    public var message: String

    /// Creates an error.
    /// - Parameter message: one sentence naming what failed and where.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
