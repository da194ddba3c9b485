import ArgumentParser
import RouterCommands

/// `tagrouter aasa`: the live association files of the rules (`aasa: { domain:, appID: }`).
struct AASACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Fetch and inspect the live association files (apple-app-site-association) the rules use.",
        discussion: """
            Rules written with aasa: { domain: D, appID: A } take their components from \
            https://D/.well-known/apple-app-site-association, which `tagrouter run` fetches in the background and \
            caches in the state directory. TAGROUTER_AASA_CA=FILE adds trusted certificates (PEM) for a private CA.
            """,
        subcommands: [AASARefreshCommand.self, AASAShowCommand.self]
    )
}

/// `tagrouter aasa refresh`: fetch now.
struct AASARefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Fetch the live association files now and cache them (a running router picks them up).",
        discussion: """
            Fetches each domain's file (conditionally when a copy is cached), validates it against the rules that \
            use it and stores it in the state directory. A failed fetch keeps the last good copy. Exit status: 0 \
            when every fetch succeeded, 1 otherwise (one line per failure on standard error).
            """)

    @Argument(help: "The domains to fetch (default: every domain the rules use).")
    var domains: [String] = []

    @OptionGroup var rules: RulesOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        try await AssociationCommands.refresh(
            domains: domains, sources: rules.rules, stateDirectory: state.stateDir,
            environment: HostDefaults.environment
        ).finish()
    }
}

/// `tagrouter aasa show`: what is cached and how a URI would match.
struct AASAShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a domain's cached association file, the components each rule takes, and a URI's verdict.",
        discussion: "Exit status: 0, or 1 when the rules are invalid or neither the rules nor the cache know DOMAIN.")

    @Argument(help: "The domain.")
    var domain: String

    @Option(help: "A URI to try against the rules that use the domain's file.")
    var uri: String?

    @OptionGroup var rules: RulesOptions
    @OptionGroup var state: StateOptions

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        try AssociationCommands.show(
            domain: domain, uri: uri, sources: rules.rules, stateDirectory: state.stateDir, json: json
        ).finish()
    }
}
