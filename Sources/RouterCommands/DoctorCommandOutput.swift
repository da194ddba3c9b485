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
            // Read to its end: String(contentsOfFile:) stops after a /proc file's first page (4 KiB), and a system
            // with many modules lists pn533 past it.
            procModules: FileHandle(forReadingAtPath: "/proc/modules").flatMap { try? $0.readToEnd() }
                .map { String(decoding: $0, as: UTF8.self) } ?? "",
            logger: Logger(label: "tagrouter", factory: { _ in SwiftLogNoOpLogHandler() }))
        let failed = checks.contains { $0.status == .problem }
        return .lines([json ? JSONOutput.line(checks) : text(checks)], status: failed ? 1 : 0)
    }
}
