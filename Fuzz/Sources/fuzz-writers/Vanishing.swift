import FuzzSupport

/// Counts the commands a fuzzed tag answers and makes it vanish after a budget of them, as a tag pulled off the
/// reader in the middle of a write.
struct Vanishing {
    /// The error a vanished tag's channel throws.
    struct Gone: Error {}

    /// How many commands the tag answers; nil for a tag that stays.
    var budget: Int?
    /// How many commands came, the one that found the tag gone included.
    var commands = 0
    /// Whether the tag refused a command (a status other than success), which may stop a write.
    var refused = false

    /// Counts a command; throws once the budget is spent.
    mutating func count() throws {
        commands += 1
        check(commands <= 100_000, "\(commands) commands: the write does not end")
        if let budget, commands > budget { throw Gone() }
    }
}
