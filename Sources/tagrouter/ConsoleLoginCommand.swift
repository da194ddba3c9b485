import ArgumentParser
import RouterCommands

/// `tagrouter console-login`: a one-time sign-in link for the web console.
struct ConsoleLoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-login",
        abstract: "Print a one-time sign-in link for the web console of the router using this state directory.",
        discussion: """
            The router must run with --console and the same --state-dir (it writes its console's address there). The \
            link works once, within 10 minutes; only its SHA-256 is kept, in the state database. Run it as the \
            router's user (or root). Exit status: 0 with the link, 1 when no console runs there or the state \
            database cannot be written.
            """)

    @OptionGroup var state: StateOptions

    func run() throws {
        try ConsoleCommands.login(stateDirectory: state.stateDir).finish()
    }
}
