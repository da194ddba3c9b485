import Foundation
import TestSupport
import Testing
import VirtualTag

/// `tagrouter doctor`, the built binary, against the private pcscd and without one.
@Suite(.needsRoot, .serialized) struct DoctorTests {
    static func rulesFile(in directory: String) throws -> String {
        let path = directory + "/rules.yaml"
        try "version: 1\nrules:\n  - name: log\n    match: { any: true }\n    run: [\"/bin/true\"]\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func allIsWellWithPcscdAReaderAndACard() async throws {
        try await RouterHarness.with(rules: RouterTests.exampleRules) { harness in
            let tag = try harness.present(uri: "https://example.com/doctor")
            try await waitUntilPcscdSeesACard(harness.pcscd)
            let output = try await TagRouterBinary.run(
                [
                    "doctor", "--rules", try Self.rulesFile(in: harness.directory), "--state-dir",
                    harness.directory + "/s",
                ],
                environment: harness.pcscd.environment)
            await tag.remove()
            #expect(output.status == 0, "\(output.standardOutput)")
            #expect(output.standardOutput.contains("ok       pcscd: reachable at \(harness.pcscd.socketPath)"))
            #expect(
                output.standardOutput.contains(#"reader "Virtual PCD 00 00": contactless slot, card present (type2)"#))
            #expect(output.standardOutput.contains("ok       card access"))
            // vpcd: the emulated reader's LED and buzzer, no escape command, and no warning about it (it is not
            // libccid; docs/tags.md, "Reader feedback").
            #expect(
                output.standardOutput.contains(
                    #"ok       feedback "Virtual PCD 00 00": vpcd: LED and buzzer with a card; no escape command"#))
            #expect(!output.standardOutput.contains("ifdDriverOptions"))
            #expect(output.standardOutput.contains("ok       rules: 1 rules in 1 files"))
            #expect(output.standardOutput.hasSuffix("everything TagRouter needs is in place\n"))
        }
    }

    @Test func noPcscdAndBrokenRulesAreProblemsWithTheirFixes() async throws {
        let directory = NSTemporaryDirectory() + "doctor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "version: 2\n".write(toFile: directory + "/bad.yaml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = directory + "/no-such.comm"
        let output = try await TagRouterBinary.run(
            ["doctor", "--rules", directory + "/bad.yaml", "--state-dir", directory + "/s", "--json"],
            environment: environment)
        #expect(output.status == 1)
        let checks = try #require(
            try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: String]])
        let pcscd = try #require(checks.first { $0["name"] == "pcscd" })
        #expect(pcscd["status"] == "problem")
        #expect(pcscd["fix"]?.contains("systemctl enable --now pcscd.socket") == true)
        let rules = try #require(checks.first { $0["name"] == "rules" })
        #expect(rules["status"] == "problem")
        #expect(checks.first { $0["name"] == "state directory" }?["status"] == "ok")
    }

    @Test func aCorruptStateDatabaseIsMovedAsideTheRouterStartsAndDoctorSaysSo() async throws {
        let directory = NSTemporaryDirectory() + "doctor-\(UUID().uuidString)"
        let state = directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let garbage = Data(repeating: 0xA5, count: 4096)
        _ = FileManager.default.createFile(atPath: state + "/tagrouter.sqlite", contents: garbage)
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = directory + "/no-such.comm"
        let rules = try Self.rulesFile(in: directory)

        // A command beside it moves nothing: it says the file is corrupt and where recovery is described.
        let history = try await TagRouterBinary.run(["history", "--state-dir", state], environment: environment)
        #expect(history.status == 1)
        #expect(history.standardError.contains("is corrupt"), "\(history.standardError)")

        let router = try RouterProcess(
            arguments: ["--rules", rules, "--state-dir", state, "--log-format", "json"], environment: environment,
            directory: directory)
        try await router.waitForLog("state_database.recovered")
        // Logged by the router service once the service group runs (and handles SIGTERM); "pcscd is not running"
        // comes before it, when a SIGTERM would still end the process by its default action.
        try await router.waitForLog("pcscd is not reachable")
        let line = try #require(router.lines(containing: "state_database.recovered").first)
        let logged = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(logged["level"] == "error")
        let movedAside = try #require(logged["state_database.moved_aside"])
        #expect(movedAside.hasPrefix(state + "/tagrouter.sqlite.corrupt-"))
        #expect(FileManager.default.contents(atPath: movedAside) == garbage)
        #expect(router.isRunning)
        #expect(try await router.terminate().status == 0)

        let output = try await TagRouterBinary.run(
            ["doctor", "--rules", rules, "--state-dir", state, "--json"], environment: environment)
        let checks = try #require(
            try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [[String: String]])
        let database = try #require(checks.first { $0["name"] == "state database" }, "\(output.standardOutput)")
        #expect(database["status"] == "warning")
        #expect(database["detail"]?.contains(movedAside) == true)
        #expect(database["fix"]?.contains("A corrupt state database") == true)
        // The fresh database is a real one: history reads it.
        let after = try await TagRouterBinary.run(["history", "--state-dir", state], environment: environment)
        #expect(after.status == 0, "\(after.standardError)")
    }
}
