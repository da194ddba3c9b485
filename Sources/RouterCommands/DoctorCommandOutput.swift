import Foundation
import JSONOutput
import Logging

extension Doctor {
    /// `tagrouter doctor` (docs/cli.md): the checks of this host, as text or a JSON array.
    /// - Parameters:
    ///   - rulesSources: `--rules`; the configured default when empty.
    ///   - stateDirectory: `--state-dir`; the default one when nil.
    ///   - json: print the checks as a JSON array.
    /// - Returns: the checks; status 1 when one of them is a problem (warnings allowed).
    public static func output(rulesSources: [String], stateDirectory: String?, json: Bool) async -> CommandOutput {
        let checks = await run(
            rulesSources: HostDefaults.rulesSources(rulesSources),
            stateDirectory: HostDefaults.stateDirectory(stateDirectory),
            environment: HostDefaults.environment,
            procModules: (try? String(contentsOfFile: "/proc/modules", encoding: .utf8)) ?? "",
            logger: Logger(label: "tagrouter", factory: { _ in SwiftLogNoOpLogHandler() }))
        let failed = checks.contains { $0.status == .problem }
        return .lines([json ? JSONOutput.line(checks) : text(checks)], status: failed ? 1 : 0)
    }
}
