import ArgumentParser
import RouterCommands

/// `--rules`: shared by `run`, `check`, `match` and `doctor`.
struct RulesOptions: ParsableArguments {
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Rules files or folders (default: $TAGROUTER_RULES, /etc/tagrouter/rules as root, else "
                + "~/.config/tagrouter/rules).", valueName: "sources"))
    var rules: [String] = []
}

/// `--state-dir`: shared by `run`, `history`, `doctor`, `check`, `match` and `aasa`.
struct StateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "State directory: tap history, webhook outbox, association file cache (default: /var/lib/tagrouter as root, else "
                + "$XDG_STATE_HOME/tagrouter or ~/.local/state/tagrouter).", valueName: "dir"))
    var stateDir: String?
}

/// `--reader`: shared by `run`, `read` and `write`.
struct ReaderOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Use only readers whose name contains this text or matches it with * and ? (repeatable).",
            valueName: "pattern"))
    var reader: [ReaderPattern] = []

    /// The readers the patterns pick.
    var filter: ReaderFilter { ReaderFilter(reader) }
}

extension CommandOutput {
    /// Writes the output and ends the command with its exit status.
    func finish() throws {
        write()
        if status != 0 { throw ExitCode(status) }
    }
}
