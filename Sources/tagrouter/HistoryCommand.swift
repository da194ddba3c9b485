import ArgumentParser
import Logging
import TagActions

/// `tagrouter history`: recent taps and webhook deliveries from the state database.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show recent taps and webhook deliveries (attempts, last status, next retry).",
        discussion: "Exit status: 0 on success, 1 if the state database cannot be read."
    )

    @Option(help: "The state directory holding tagrouter.sqlite (default: \(StateDirectory.defaultPath())).")
    var stateDir: String?

    @Flag(help: "Only failed taps and failed webhook deliveries.")
    var failed = false

    @Option(help: "Show at most this many taps and this many deliveries.")
    var limit = 20

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be a positive number, got \(limit)") }
    }

    func run() throws {
        var logger = Logger(label: "tagrouter.history")
        logger.logLevel = .error
        let directory = stateDir ?? StateDirectory.defaultPath()
        // An ActionError propagates: ArgumentParser prints "Error: <sentence>" and exits 1.
        let report =
            Outbox.exists(in: directory)
            ? try Outbox(directory: directory, logger: logger).history(failedOnly: failed, limit: limit)
            : HistoryReport(taps: [], deliveries: [])
        print(json ? report.json() : report.text(), terminator: json ? "\n" : "")
    }
}
