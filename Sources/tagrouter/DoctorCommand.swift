import ArgumentParser
import Foundation
import Logging
import TagActions
import TagRouterCore
import TagRules

/// `tagrouter doctor`: checks the host and explains each problem with its fix.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check pcscd, polkit access, kernel NFC modules, readers, rules, state directory and URL opener.",
        discussion: "Exit status: 0 when nothing stops TagRouter from working (warnings allowed), 1 otherwise.")

    @Option(parsing: .upToNextOption, help: "Rules files or folders (default: the configured rules path).")
    var rules: [String] = []

    @Option(help: ArgumentHelp("State directory to check (default: as `tagrouter run`).", valueName: "dir"))
    var stateDir: String?

    @Flag(help: "Print the checks as a JSON array.")
    var json = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let isRoot = geteuid() == 0
        let checks = await Doctor.run(
            rulesSources: rules.isEmpty ? [DefaultRulesPath.resolve(environment: environment, isRoot: isRoot)] : rules,
            stateDirectory: stateDir ?? StateDirectory.defaultPath(environment: environment, isRoot: isRoot),
            environment: environment,
            procModules: (try? String(contentsOfFile: "/proc/modules", encoding: .utf8)) ?? "",
            logger: Logger(label: "tagrouter", factory: { _ in SwiftLogNoOpLogHandler() }))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(checks), as: UTF8.self))
        } else {
            print(Doctor.text(checks))
        }
        if checks.contains(where: { $0.status == .problem }) { throw ExitCode(1) }
    }
}
