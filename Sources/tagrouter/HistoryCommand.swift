import ArgumentParser
import RouterCommands

/// `tagrouter history`: taps, webhook deliveries and MQTT publications from the state database, listed or exported.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show recent taps, webhook deliveries and MQTT publications, or export the taps (JSON lines, CSV).",
        discussion: "Exit status: 0 on success, 1 if the state database cannot be read."
    )

    @OptionGroup var state: StateOptions

    @Option(
        help: ArgumentHelp(
            "Only taps at or after this time: RFC 3339 with its offset, or a span back from now (2h, 7d).",
            valueName: "time"))
    var since: HistoryTimeArgument?

    @Option(
        help: ArgumentHelp(
            "Only taps before this time: RFC 3339 with its offset, or a span back from now (2h, 7d).",
            valueName: "time"))
    var until: HistoryTimeArgument?

    @Option(help: ArgumentHelp("Only taps on this reader (its whole name).", valueName: "name"))
    var reader: String?

    @Option(help: ArgumentHelp("Only taps this rule matched or refused.", valueName: "name"))
    var rule: String?

    @Option(help: ArgumentHelp("Only taps of this tag: its UID or its enrolled name.", valueName: "uid-or-name"))
    var tag: String?

    @Option(help: ArgumentHelp("Only taps with this outcome (repeatable).", valueName: "outcome"))
    var outcome: [OutcomeArgument] = []

    @Flag(help: "Only failed taps, and failed webhook deliveries and MQTT publications.")
    var failed = false

    @Flag(help: "Only the taps a door rule refused, with the rule and the reason (no deliveries).")
    var denied = false

    @Option(
        help: ArgumentHelp(
            "table (default) or json: recent taps and deliveries; jsonl or csv: every tap the filters keep, oldest "
                + "first, streamed.", valueName: "format"))
    var format: HistoryFormat?

    @Option(help: "At most this many taps (and deliveries); default 20 for table and json, every tap for an export.")
    var limit: PositiveCount?

    @Flag(help: "Print JSON instead of text (the same as --format json).")
    var json = false

    func validate() throws {
        if json, let format, format != .json {
            throw ValidationError("--json and --format \(format.rawValue) ask for different outputs: give one")
        }
    }

    func run() throws {
        var query = HistoryListing.Query()
        query.since = since
        query.until = until
        query.reader = reader
        query.rule = rule
        query.tag = tag
        query.outcomes = outcome
        if let export = format?.export {
            try HistoryListing.export(
                stateDirectory: state.stateDir, query: query, failedOnly: failed, deniedOnly: denied,
                limit: limit?.value, format: export, write: Terminal.write
            ).finish()
        } else {
            try HistoryListing.output(
                stateDirectory: state.stateDir, query: query, failedOnly: failed, deniedOnly: denied,
                limit: limit?.value ?? 20, json: json || format == .json
            ).finish()
        }
    }
}
