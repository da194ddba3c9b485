/// A test harness could not do its job (start pcscd, find the built binary, run it).
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong and where.
    public let description: String

    /// Creates the error.
    /// - Parameter description: what went wrong and where.
    public init(_ description: String) {
        self.description = description
    }
}
