import ArgumentParser
import RouterCommands

/// `tagrouter doctor`: checks the host and explains each problem with its fix.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Check pcscd, polkit access, kernel NFC modules, readers, rules, state directory, URL opener and MQTT broker.",
        discussion: "Exit status: 0 when nothing stops TagRouter from working (warnings allowed), 1 otherwise.")

    @OptionGroup var rules: RulesOptions
    @OptionGroup var state: StateOptions

    @Flag(help: "Print the checks as a JSON array.")
    var json = false

    func run() async throws {
        try await Doctor.output(rulesSources: rules.rules, stateDirectory: state.stateDir, json: json).finish()
    }
}
