import ArgumentParser
import RouterCommands

/// `tagrouter history`: recent taps, webhook deliveries and MQTT publications from the state database.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show recent taps, webhook deliveries and MQTT publications (attempts, last status, next retry).",
        discussion: "Exit status: 0 on success, 1 if the state database cannot be read."
    )

    @OptionGroup var state: StateOptions

    @Flag(help: "Only failed taps, and failed webhook deliveries and MQTT publications.")
    var failed = false

    @Flag(help: "Only the taps a door rule refused, with the rule and the reason (no deliveries).")
    var denied = false

    @Option(help: "Show at most this many taps and this many deliveries.")
    var limit = PositiveCount(20)

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        try HistoryListing.output(
            stateDirectory: state.stateDir, failedOnly: failed, deniedOnly: denied, limit: limit.value, json: json
        ).finish()
    }
}
