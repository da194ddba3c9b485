import ArgumentParser
import RouterCommands

/// `tagrouter readers`: the readers pcscd knows and what is on each.
struct ReadersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers",
        abstract: "List the readers and the tag on each (ATR, technology, UID).",
        discussion: """
            Exit status: 0 when pcscd answered (even with no reader), 1 with one sentence on standard error when \
            it cannot be reached or refuses access.
            """)

    @Flag(help: "Print a JSON array: [{\"reader\", \"tag\": null or {\"uid\", \"tech\", \"atr\", \"error\"}}].")
    var json = false

    func run() async throws {
        try await ReaderCommands.readers(json: json).finish()
    }
}
