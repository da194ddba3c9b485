import ArgumentParser
import RouterCommands

/// `tagrouter learn`: enroll the next tag put on a reader in the tags file.
struct LearnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "learn",
        abstract: "Enroll a tag by tapping it: wait for the next tag on a reader and add it to tags.yaml.",
        discussion: """
            Waits for a tag put on a reader after the command starts, reads its UID and appends an entry to \
            tags.yaml in the rules folder (created 0640 if missing; comments and order kept). A running router \
            does nothing for that tag and picks the entry up at its next reload. Exit status: 0 when the tag was \
            enrolled, 1 with one sentence when it was not (name taken, UID already enrolled without --replace, \
            no tag within the timeout, a broken tags file). With --bundle DIR the tag is enrolled in a bundle's \
            folder on this machine (central enrollment, docs/fleet.md): then pack it with a newer version and publish \
            it.
            """)

    @Option(help: "The tag's name: unique, shown as {tag.name}.")
    var name: String

    @Option(help: "A group of the tag, shown in {tag.groups} and named by rules' tags: (repeatable).")
    var group: [String] = []

    @Option(help: ArgumentHelp("The first valid day.", valueName: "YYYY-MM-DD"))
    var validFrom: String?

    @Option(help: ArgumentHelp("The last valid day (inclusive).", valueName: "YYYY-MM-DD"))
    var validUntil: String?

    @Option(help: "A note, shown by tagrouter tags list.")
    var note: String?

    @Flag(help: "Replace the entry of a UID already enrolled instead of refusing.")
    var replace = false

    @Option(help: "How long to wait for a tag (500ms, 10s, 2m).")
    var timeout = DurationArgument(argument: "60s")!

    @OptionGroup var readers: ReaderOptions
    @OptionGroup var rules: RulesOptions

    @Option(
        help: ArgumentHelp(
            "Enroll in the tags.yaml of this bundle folder (then bundle pack it) instead of --rules.",
            valueName: "dir"))
    var bundle: String?

    func validate() throws {
        if bundle != nil, !rules.rules.isEmpty {
            throw ValidationError("--bundle and --rules name the folder to enroll in: give one of them")
        }
    }

    @Flag(help: "Print one JSON document: {\"file\", \"name\", \"reader\", \"replaced\", \"tech\", \"uid\"}.")
    var json = false

    func run() async throws {
        let request = Enrollment.Request(
            name: name, groups: group, validFrom: validFrom, validUntil: validUntil, note: note, replace: replace,
            timeout: timeout.duration)
        let sources = bundle.map { [$0] } ?? rules.rules
        try await Enrollment.learn(request, readers: readers.filter, sources: sources, json: json).finish()
    }
}
