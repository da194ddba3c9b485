import Foundation
import Logging
import TestSupport
import Testing
import VirtualTag

/// Secrets stay in the router (issue 39, finding 7): a rule's command, running as the router's user, cannot read
/// the router's `/proc/PID/environ`, gets none of its secrets nor `CREDENTIALS_DIRECTORY`, and `${NAME}` reads
/// systemd credentials. The router runs as `nobody` (as root, /proc would be open to the test anyway), against
/// the private pcscd, and a virtual tag's tap runs the command that tries.
@Suite(.needsRoot, .serialized) struct SecretsTests {
    static let nobody: UInt32 = 65534
    static let secret = "s3cr3t-\(UUID().uuidString)"

    /// The command: records its uid, its parent (the router), its environment, whether it could read the
    /// router's environ, and, for comparison, a dumpable process of the same user's (a `sleep` of its own).
    static let peek = """
        out=$1
        id -u > "$out/uid"
        echo "$PPID" > "$out/ppid"
        env > "$out/env"
        if cat /proc/$PPID/environ > "$out/router-environ" 2> "$out/router-error"; then r=readable; else r=denied; fi
        sleep 30 &
        sibling=$!
        if cat /proc/$sibling/environ > /dev/null; then s=readable; else s=denied; fi
        kill $sibling
        echo "$s" > "$out/sibling"
        echo "$r" > "$out/router"
        """

    static func rules(output: String) -> String {
        let script = peek.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\"", with: "\\\"")
        return """
            version: 1
            rules:
              - name: peek
                match: {any: true}
                actions:
                  - run:
                      argv: ["/bin/sh", "-c", "\(script)", "sh", "\(output)"]
                      env: {PEEK_TOKEN: "${TOKEN}"}
            """
    }

    @Test("a command of the router's own user cannot read its /proc/PID/environ (EACCES); credentials fill ${NAME}")
    func commandCannotReadTheRouter() async throws {
        try await withPCSCD { pcscd in
            let directory = NSTemporaryDirectory() + "secrets-e2e-\(UUID().uuidString)"
            let output = directory + "/out"
            let credentials = directory + "/credentials"
            for path in [directory, directory + "/rules", output, credentials] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try Self.rules(output: output).write(
                toFile: directory + "/rules/10-peek.yaml", atomically: true, encoding: .utf8)
            try "from-credential\n".write(toFile: credentials + "/TOKEN", atomically: true, encoding: .utf8)
            for path in [directory, directory + "/rules", directory + "/rules/10-peek.yaml", output, credentials] {
                #expect(chown(path, Self.nobody, Self.nobody) == 0)
            }
            #expect(chown(credentials + "/TOKEN", Self.nobody, Self.nobody) == 0)
            #expect(chmod(credentials, 0o500) == 0 && chmod(credentials + "/TOKEN", 0o400) == 0)
            // The private pcscd's socket (0666) is under directories the test created: nobody must pass them.
            let socketDirectory = (pcscd.socketPath as NSString).deletingLastPathComponent
            for path in [(socketDirectory as NSString).deletingLastPathComponent, socketDirectory] {
                #expect(chmod(path, 0o755) == 0)
            }

            let environment = pcscd.environment.merging([
                "TAGROUTER_TEST_SECRET": Self.secret, "TOKEN": "from-environment", "CREDENTIALS_DIRECTORY": credentials,
                "HOME": directory,
            ]) { _, new in new }
            let router = try RouterProcess(
                arguments: [
                    "--rules", directory + "/rules", "--state-dir", directory + "/state", "--log-level", "debug",
                ],
                environment: environment, directory: directory, user: Self.nobody)
            defer { router.kill() }
            try await router.waitForLog("watching 2 readers")
            try await router.waitForLog(RouterHarness.readerAdded, count: 2)
            #expect(router.log.contains("process.not_dumpable"))

            var options = Type2Card.Options(model: .ntag213)
            options.uid = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
            let card = try Type2Card(
                model: .ntag213, message: try RouterHarness.uriMessage("https://example.com/peek"), options: options)
            let tag = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: Logger(label: "test")).present(card)
            let deadline = ContinuousClock.now + .seconds(15)
            while !FileManager.default.fileExists(atPath: output + "/router"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            await tag.remove()
            func read(_ name: String) -> String {
                ((try? String(contentsOfFile: output + "/" + name, encoding: .utf8)) ?? "")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try #require(read("router") != "", "the command did not run:\n\(router.log)")

            #expect(read("uid") == "\(Self.nobody)")
            #expect(read("ppid") == "\(router.pid)", "the command's parent is the router")
            #expect(read("router") == "denied")
            #expect(read("router-error").contains("Permission denied"), "\(read("router-error"))")
            #expect(!read("router-environ").contains(Self.secret))
            // The same user reads a dumpable process's environ: the refusal is the router's doing.
            #expect(read("sibling") == "readable")

            let commandEnvironment = read("env").split(separator: "\n").map(String.init)
            #expect(commandEnvironment.contains("PEEK_TOKEN=from-credential"), "\(commandEnvironment)")
            for name in ["CREDENTIALS_DIRECTORY", "TAGROUTER_TEST_SECRET", "TOKEN", "PCSCLITE_CSOCK_NAME"] {
                #expect(!commandEnvironment.contains { $0.hasPrefix(name + "=") }, "\(name) reached the command")
            }
            #expect(!read("env").contains(Self.secret))
            #expect(!router.log.contains(Self.secret))
            #expect(!router.log.contains("from-credential"))

            #expect(try await router.terminate().status == 0, "\(router.log)")
        }
    }

    @Test("check reads a ${NAME} from $CREDENTIALS_DIRECTORY; without it the variable is missing")
    func checkReadsCredentials() async throws {
        let directory = NSTemporaryDirectory() + "secrets-check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/credentials", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rules = directory + "/rules.yaml"
        try """
        version: 1
        rules:
          - name: ha
            match: {any: true}
            webhook: {url: "https://ha.example/api/events/tag", headers: {Authorization: "Bearer ${HA_TOKEN}"}}
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        try "t0k3n-\(Self.secret)\n".write(
            toFile: directory + "/credentials/HA_TOKEN", atomically: true, encoding: .utf8)
        let base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]

        let with = try await TagRouterBinary.run(
            ["check", rules], environment: base.merging(["CREDENTIALS_DIRECTORY": directory + "/credentials"]) { $1 })
        #expect(with.status == 0, "\(with.standardOutput)\(with.standardError)")
        #expect(!(with.standardOutput + with.standardError).contains(Self.secret))

        let match = try await TagRouterBinary.run(
            ["match", "https://e.com/", "--rules", rules],
            environment: base.merging(["CREDENTIALS_DIRECTORY": directory + "/credentials"]) { $1 })
        #expect(match.status == 0, "\(match.standardOutput)\(match.standardError)")
        #expect(match.standardOutput.contains("Authorization:"), "\(match.standardOutput)")
        #expect(!(match.standardOutput + match.standardError).contains(Self.secret))

        let without = try await TagRouterBinary.run(["check", rules], environment: base)
        #expect(without.status != 0)
        #expect((without.standardOutput + without.standardError).contains("environment variable 'HA_TOKEN' is not set"))
    }
}
