import ArgumentParser
import Foundation
import TagRules

/// `tagrouter check`: validates rules files and prints every problem, compiler style.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate rules files and folders.",
        discussion: """
            Prints every problem of every file (file:line:col: error: …) and exits 1, or prints \
            "N rules in M files" and exits 0. Without SOURCES, reads $TAGROUTER_RULES, or /etc/tagrouter/rules \
            as root, or $XDG_CONFIG_HOME/tagrouter/rules (~/.config/tagrouter/rules).
            """
    )

    @Argument(help: "Rules files or folders (default: the configured rules path).")
    var sources: [String] = []

    @Flag(help: "Print the result as JSON, for editors and CI.")
    var json = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let paths =
            sources.isEmpty ? [DefaultRulesPath.resolve(environment: environment, isRoot: getuid() == 0)] : sources
        let report = CheckReport(sources: paths, environment: environment)
        print(json ? report.json : report.text)
        if !report.succeeded { throw ExitCode(1) }
    }
}
