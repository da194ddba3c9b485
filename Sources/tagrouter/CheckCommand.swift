import ArgumentParser
import RouterCommands

/// `tagrouter check`: validates rules files and prints every problem, compiler style.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate rules files and folders.",
        discussion: """
            Prints every problem of every file (file:line:col: error: …) and exits 1, or prints \
            "N rules in M files" and exits 0. Without SOURCES or --rules, reads $TAGROUTER_RULES, or \
            /etc/tagrouter/rules as root, or $XDG_CONFIG_HOME/tagrouter/rules (~/.config/tagrouter/rules). A rule \
            whose live association file (aasa: { domain: … }) is not in the state directory's cache yet gets a \
            warning: it matches nothing until the file is fetched.
            """
    )

    @Argument(help: "Rules files or folders, the same as --rules.")
    var sources: [String] = []

    @OptionGroup var rules: RulesOptions
    @OptionGroup var state: StateOptions

    @Flag(help: "Print the result as JSON, for editors and CI.")
    var json = false

    func run() throws {
        try RulesCommands.check(sources: sources + rules.rules, json: json, stateDirectory: state.stateDir).finish()
    }
}
