/// The one error type of TagActions: what failed, where, and why, in one sentence a user can act on.
public struct ActionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, for code that reacts to it.
    public enum Code: String, Sendable, Hashable {
        /// A command's argument vector, environment or working directory is unusable.
        case invalidCommand
        /// A command could not be started (program not found, not executable, bad working directory).
        case launchFailed
        /// The command queue was full, so the action was dropped.
        case queueFull
        /// No URL opener (`xdg-open`, `open`) was found on `PATH`.
        case noOpener
        /// A webhook request is malformed: URL, method or a header.
        case invalidRequest
    }

    /// What kind of failure this is.
    public var code: Code
    /// The full sentence: what failed and where.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of failure.
    ///   - message: one sentence naming what failed and where.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
