public import ArgumentParser

/// A tag UID as typed by a user (`04:A1-b2 c3`), kept as rules and events write it: uppercase hex without
/// separators (`match --uid`).
public struct UIDArgument: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The UID as uppercase hex without separators.
    public var description: String

    /// Parses a UID.
    /// - Parameter argument: the UID as typed.
    /// - Returns: nil when it is not an even number of hex digits (separators allowed).
    public init?(argument: String) {
        guard let canonical = RulesCommands.canonicalUID(argument) else { return nil }
        description = canonical
    }
}
