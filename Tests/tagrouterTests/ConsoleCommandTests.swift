import Foundation
import TestSupport
import Testing

/// `tagrouter run --console` refusing what is unsafe, and `tagrouter console-login` with no console, through the
/// built binary (docs/console.md).
@Suite struct ConsoleCommandTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "console-command-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path + "/rules", withIntermediateDirectories: true)
        try "version: 1\nrules: []\n".write(toFile: path + "/rules/r.yaml", atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [
        (
            ["--console", "0.0.0.0:8788"],
            "the console's address 0.0.0.0:8788 is not loopback: the console refuses to serve it without TLS; give "
                + "--console-certificate FILE and --console-key FILE (or certificate: and key: in the console: "
                + "block), or listen on 127.0.0.1 behind a reverse proxy (docs/operations.md, \"The web console\")"
        ),
        (
            ["--console", "127.0.0.1:0", "--console-key", "/nonexistent.key"],
            "the console's TLS needs a certificate and a key (--console-certificate and --console-key, or "
                + "certificate: and key: in the console: block); only one is given"
        ),
    ])
    func runRefusesAConsoleItCannotServeSafely(arguments: [String], error: String) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = try await TagRouterBinary.run(
            ["run", "--rules", directory + "/rules", "--state-dir", directory + "/state"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "PCSCLITE_CSOCK_NAME": directory + "/no-pcscd"])
        #expect(output.status == 1)
        #expect(output.standardError.contains(error), "\(output.standardError)")
    }

    @Test func consoleLoginWithoutARunningConsoleSaysWhatToDo() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = try await TagRouterBinary.run(
            ["console-login", "--state-dir", directory + "/state"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(output.status == 1)
        #expect(
            output.standardError
                == "no console is running with the state directory \(directory)/state: start tagrouter run --console "
                + "127.0.0.1:8788 (with the same --state-dir), or pass the router's --state-dir\n")
    }
}
