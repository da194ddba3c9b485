import Logging
import StateStore
import TagActions

/// `tagrouter history` (docs/cli.md): what the state database remembers.
public enum HistoryListing {
    /// `tagrouter history`: recent taps and webhook deliveries.
    /// - Parameters:
    ///   - stateDirectory: `--state-dir`; the default one when nil.
    ///   - failedOnly: only failed taps and deliveries.
    ///   - deniedOnly: only the taps a door rule refused.
    ///   - limit: at most this many of each.
    ///   - json: print JSON.
    /// - Returns: the history; status 1 with one sentence when the state database cannot be read.
    public static func output(
        stateDirectory: String?, failedOnly: Bool, deniedOnly: Bool = false, limit: Int, json: Bool
    ) -> CommandOutput {
        var logger = ReaderCommands.logger
        logger.logLevel = .error
        let directory = HostDefaults.stateDirectory(stateDirectory)
        do {
            let report =
                StateDatabase.exists(in: directory)
                ? try StateDatabase(directory: directory, logger: logger).history(
                    failedOnly: failedOnly, deniedOnly: deniedOnly, limit: limit)
                : HistoryReport(taps: [], deliveries: [])
            return CommandOutput(standardOutput: json ? report.json() + "\n" : report.text())
        } catch {
            return .failure("Error: \(error)")
        }
    }
}
