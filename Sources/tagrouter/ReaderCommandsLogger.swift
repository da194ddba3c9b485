import Logging

/// The logger of `readers`, `read` and `emulate`: warnings and errors on standard error, so standard output
/// holds only the command's result (a JSON document stays parseable). Leaves the global logging system alone.
func readerCommandsLogger() -> Logger {
    var logger = Logger(label: "tagrouter") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .warning
    return logger
}
