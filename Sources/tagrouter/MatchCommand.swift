import ArgumentParser
import RouterCommands

/// `tagrouter match`: a dry run of one tag against the rules; shows what would run, runs nothing.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Show which rules a tag with this URI would trigger, and the actions, without running them.",
        discussion: """
            Exit status: 3 when a door rule refuses the tag and no rule decides, else 0 when a rule matches, 2 \
            when no rule does (the tag would be ignored); 1 when the rules have errors. Secrets from ${VAR} are shown as ${VAR}. Live association files (aasa: { domain: … }) \
            are taken from the state directory's cache; a rule whose file is not fetched yet matches nothing, and \
            --explain says so.
            """
    )

    @Argument(help: "The tag's URI (use \"\" for a tag without one).")
    var uri: String

    @Option(help: "The tag UID in hex (separators and case are free).")
    var uid: UIDArgument?

    @Option(help: "The reader name.")
    var reader = "cli"

    @Option(help: "The tag technology: type2, type4, type5, mifare-classic, felica, iso14443-4 or type1.")
    var tech = "type2"

    @Option(help: "The text of a Text record on the tag.")
    var text: [String] = []

    @Option(
        help: ArgumentHelp(
            "When the tag is presented, in RFC 3339 (2026-12-01T20:00:00+01:00): time windows and the validity of "
                + "enrolled tags are judged then (default: now).", valueName: "time"))
    var at: TimeArgument?

    @OptionGroup var rules: RulesOptions
    @OptionGroup var state: StateOptions

    @Flag(help: "Show every rule's verdict and what decided it.")
    var explain = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        let tag = RulesCommands.Tag(
            uri: uri.isEmpty ? nil : uri, uid: uid?.description, reader: reader, tech: tech, texts: text)
        try RulesCommands.match(
            tag, sources: rules.rules, explain: explain, json: json, stateDirectory: state.stateDir, at: at?.date
        ).finish()
    }
}
