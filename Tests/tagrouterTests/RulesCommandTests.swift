import ArgumentParser
import Foundation
import Testing

@testable import tagrouter

/// A temporary rules file, removed when the test ends.
private func withRulesFile(_ text: String, _ body: (String) throws -> Void) throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID().uuidString).yaml").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
}

private let rules = """
    version: 1
    rules:
      - {name: web, match: {domains: [e.com]}, open: "{uri}"}
      - {name: fob, match: {uid: ['04:A1']}, run: [/bin/true, "{uid}"]}
    """

/// The exit code a command's `run()` ends with (0 when it returns normally).
private func exitCode(_ command: some ParsableCommand) -> Int32 {
    var command = command
    do {
        try command.run()
        return 0
    } catch let code as ExitCode {
        return code.rawValue
    } catch {
        return -1
    }
}

@Test(
    arguments: [
        (["https://e.com/x"], Int32(0)),
        (["https://other.example/"], 2),
        (["", "--uid", "04a1"], 0),
        (["", "--uid", "04-A1", "--json"], 0),
        (["spotify:track:1", "--explain"], 2),
    ] as [([String], Int32)])
func matchExitStatus(arguments: [String], expected: Int32) throws {
    try withRulesFile(rules) { path in
        let command = try MatchCommand.parse(arguments + ["--rules", path])
        #expect(exitCode(command) == expected)
    }
}

@Test func matchRefusesABadUID() {
    #expect(throws: (any Error).self) { try MatchCommand.parse(["https://e.com/", "--uid", "04A"]) }
    #expect(throws: (any Error).self) { try MatchCommand.parse(["https://e.com/", "--uid", "zz"]) }
}

@Test func checkExitStatus() throws {
    try withRulesFile(rules) { path in
        let plain = try CheckCommand.parse([path])
        let json = try CheckCommand.parse([path, "--json"])
        #expect(exitCode(plain) == 0)
        #expect(exitCode(json) == 0)
    }
    try withRulesFile("version: 2\nrules: []\n") { path in
        let check = try CheckCommand.parse([path])
        let match = try MatchCommand.parse(["https://e.com/", "--rules", path])
        #expect(exitCode(check) == 1)
        #expect(exitCode(match) == 1)
    }
}
