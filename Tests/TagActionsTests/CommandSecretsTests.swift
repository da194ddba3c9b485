import Foundation
import TagActions
import Testing

/// What a command never gets from a router that systemd started with credentials and secrets.
@Suite("CommandRunner: no credentials, secrets nor systemd variables reach a command")
struct CommandSecretsTests {
    /// The variables systemd gives a service (systemd.exec(5), "Environment Variables in Spawned Processes")
    /// that a command must not see, and secrets in the router's environment.
    static let routerOnly = [
        "CREDENTIALS_DIRECTORY": "/run/credentials/tagrouter.service", "NOTIFY_SOCKET": "/run/systemd/notify",
        "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1234", "INVOCATION_ID": "0123456789abcdef",
        "JOURNAL_STREAM": "8:12345", "LISTEN_FDS": "1", "LISTEN_PID": "1234", "LISTEN_FDNAMES": "pcscd",
        "MAINPID": "1234", "RUNTIME_DIRECTORY": "/run/tagrouter", "STATE_DIRECTORY": "/var/lib/tagrouter",
        "SYSTEMD_EXEC_PID": "1234", "HA_TOKEN": "secret-token", "DOOR_FILE_KEY": "00112233445566778899AABBCCDDEEFF",
    ]

    @Test("the router's CREDENTIALS_DIRECTORY, NOTIFY_SOCKET, WATCHDOG_* and secrets stay out; the opener's too")
    func routerOnlyVariablesStayOut() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let router = Self.routerOnly.merging(["PATH": "/usr/bin:/bin", "HOME": "/var/lib/tagrouter"]) { a, _ in a }
            let runner = CommandRunner(environment: router, logger: TestEnvironment.logger)
            for usesDesktopSession in [false, true] {
                let output = directory + "/record-\(usesDesktopSession).json"
                var command = CommandAction(
                    argv: [TestEnvironment.argvRecorder], environment: ["ARGV_RECORDER_OUT": output])
                command.usesDesktopSession = usesDesktopSession
                let result = try await runner.run(command)
                #expect(result.termination == .exited(0))
                let recording = try Recording(path: output)
                #expect(Set(recording.environment.keys) == ["PATH", "HOME", "ARGV_RECORDER_OUT"])
                for name in Self.routerOnly.keys { #expect(recording.environment[name] == nil, "\(name)") }
            }
        }
    }
}
