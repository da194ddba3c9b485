import ArgumentParser
import RouterCommands

/// `tagrouter read`: read one tag and print what it holds.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read one tag: UID, technology, ATR and NDEF records.",
        discussion: """
            Reads the tag already on a reader; with --wait, waits for one to be presented. Exit status: 0 when \
            the tag was read, 1 with one sentence on standard error when it could not be (no reader, no tag, tag \
            removed during the read, invalid NDEF, pcscd not running or refusing access).
            """)

    @OptionGroup var readers: ReaderOptions

    @Flag(help: "Wait until a tag is presented instead of failing when none is there.")
    var wait = false

    @Flag(help: "Print one JSON document: {\"reader\", \"uid\", \"tech\", \"atr\", \"records\"}.")
    var json = false

    func run() async throws {
        try await ReaderCommands.read(readers: readers.filter, wait: wait, json: json).finish()
    }
}
