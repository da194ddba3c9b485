import Foundation
import Logging
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// `tagrouter write --sun` (docs/tags.md, "Provisioning an NTAG 424 DNA") through a real pcscd and vpcd: a
/// factory NTAG 424 DNA provisioned, then opening a door rule in the real router; a dry run that changes
/// nothing; the questions and refusals; and the tag ripped away at every command of a provisioning, after which
/// the same command, run again, always finishes it.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct SUNProvisioningTests {
    let logger = Logger(label: "test")

    static let keys = [
        "DOOR_META_KEY": String(repeating: "5A", count: 16), "DOOR_FILE_KEY": String(repeating: "C3", count: 16),
        "DOOR_MASTER_KEY": String(repeating: "0F", count: 15) + "01",
    ]
    static let uid: [UInt8] = [0x04, 0x31, 0x9E, 0x22, 0x7A, 0x5C, 0x80]
    static let command = [
        "write", "--sun", "--uri", "https://door.example/open", "--meta-read-key", "DOOR_META_KEY",
        "--file-read-key", "DOOR_FILE_KEY", "--master-key", "${DOOR_MASTER_KEY}", "--reader", "*00",
    ]

    func environment(_ pcscd: PrivatePCSCD) -> [String: String] {
        pcscd.environment.merging(Self.keys) { _, new in new }
    }

    @Test("a factory tag is provisioned, verified, and then opens a SUN door rule in the router")
    func provisionThenOpen() async throws {
        let provisioned: Type4Card = try await withPCSCD { pcscd in
            let reader = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let presented = try reader.present(try Type4Card.ntag424(uid: Self.uid))
            try await waitUntilReaderHasACard(pcscd, slot: 0)

            // Without a terminal and without --yes: refused, nothing sent past the question.
            let unasked = try await TagRouterBinary.run(Self.command, environment: environment(pcscd))
            #expect(unasked.status == 2, "\(unasked.standardError)")
            #expect(unasked.standardError.contains("add --yes"), "\(unasked.standardError)")
            #expect(presented.commandCount == 0)

            let dry = try await TagRouterBinary.run(Self.command + ["--dry-run"], environment: environment(pcscd))
            #expect(dry.status == 0, "\(dry.standardError)")
            #expect(
                dry.standardOutput.contains("would    ChangeKey 0 (AppMasterKey), version 1"), "\(dry.standardOutput)")
            #expect(dry.standardOutput.contains("dry run: nothing was changed"))
            #expect((presented.card as? Type4Card)?.chip?.sdm == nil)

            let output = try await TagRouterBinary.run(
                Self.command + ["--yes", "--json"], environment: environment(pcscd))
            #expect(output.status == 0, "\(output.standardError)")
            let report = try JSONSerialization.jsonObject(with: Data(output.standardOutput.utf8)) as? [String: Any]
            #expect(report?["uid"] as? String == "04319E227A5C80")
            #expect(report?["keysChanged"] as? [Int] == [1, 2, 0])
            #expect(report?["counter"] as? Int == 1)
            // The keys appear nowhere in what the command printed.
            for key in Self.keys.values {
                #expect(!output.standardOutput.contains(key) && !output.standardError.contains(key))
            }

            // The same command again finds the new keys and changes none.
            let again = try await TagRouterBinary.run(Self.command + ["--yes"], environment: environment(pcscd))
            #expect(again.status == 0, "\(again.standardError)")
            #expect(
                again.standardOutput.contains(
                    "provisioned: no key changed, keys 1, 2, 0 already held the new keys; SUN message verified, read counter 2"
                ), "\(again.standardOutput)")
            await presented.remove()
            return try #require(presented.card as? Type4Card)
        }

        let rules = """
            version: 1
            defaults: { cooldown: 0 }
            rules:
              - name: front-door
                match:
                  domains: [door.example]
                  sun: { piccData: p, mac: m, metaReadKey: "${DOOR_META_KEY}", fileReadKey: "${DOOR_FILE_KEY}" }
                run: ["/bin/sh", "-c", "printf '%s|%s\\n' \\"$1\\" \\"$2\\" >> OUT", "sh", "{sun.uid}", "{sun.counter}"]

            """
        try await RouterHarness.with(rules: rules, environment: Self.keys) { harness in
            let tag = try harness.present(provisioned)
            try await harness.waitForDispatches(1)
            // Reads 1 and 2 were the two verifications of `write`; the router's is the third.
            #expect(harness.dispatched == ["04319E227A5C80|3"])
            try await harness.remove(tag, slot: 0)
        }
    }

    @Test("a key given in place of a variable's name, and an unset variable, are refused before any command")
    func keysStayOffTheCommandLine() async throws {
        let literal = try await TagRouterBinary.run(
            [
                "write", "--sun", "--uri", "https://door.example/open", "--meta-read-key",
                String(repeating: "5A", count: 16), "--file-read-key", "F", "--master-key", "M",
            ], environment: [:])
        #expect(literal.status == 64, "\(literal.standardError)")
        #expect(literal.standardError.contains("not the key"), "\(literal.standardError)")
        let fragment = try await TagRouterBinary.run(
            Self.command.map { $0 == "https://door.example/open" ? "https://door.example/open#x" : $0 },
            environment: [:])
        #expect(fragment.status == 64, "\(fragment.standardError)")
        #expect(fragment.standardError.contains("fragment"), "\(fragment.standardError)")
        let unset = try await TagRouterBinary.run(Self.command + ["--yes"], environment: [:])
        #expect(unset.status == 2, "\(unset.standardError)")
        #expect(unset.standardError.contains("DOOR_MASTER_KEY is not set"), "\(unset.standardError)")
    }

    /// A full provisioning tells how many commands it takes (n). Then for every k in 0..<n the tag answers k
    /// commands and vanishes at the next: the command fails with the recovery sentence, no key is unknown, and the
    /// same command run on the tag as it was left finishes it.
    @Test func aTagRippedAwayAtEveryCommandIsFinishedByTheSameCommand() async throws {
        try await withPCSCD { pcscd in
            let reader = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let full = try reader.present(try Type4Card.ntag424(uid: Self.uid))
            try await waitUntilReaderHasACard(pcscd, slot: 0)
            let written = try await TagRouterBinary.run(Self.command + ["--yes"], environment: environment(pcscd))
            #expect(written.status == 0, "\(written.standardError)")
            await full.remove()
            let commands = full.commandCount
            try #require(commands > 20, "a provisioning took \(commands) commands")
            try await waitUntilReaderIsEmpty(pcscd, slot: 0)
            print("fault suite: NTAG 424 DNA provisioning answers \(commands) commands; vanishing at each")

            let allowed: Set<String> = Set(Self.keys.values).union([String(repeating: "00", count: 16)])
            for limit in 0..<commands {
                let ripped = try reader.present(try Type4Card.ntag424(uid: Self.uid), answeringAtMost: limit)
                try await waitUntilReaderHasACard(pcscd, slot: 0)
                let output = try await TagRouterBinary.run(
                    Self.command + ["--yes"], environment: environment(pcscd))
                await ripped.waitUntilGone()
                #expect(output.status == 1, "vanishing at command \(limit + 1) of \(commands): \(output.standardError)")
                #expect(
                    output.standardError.contains("present it again and run the same command"),
                    "\(output.standardError)")
                try await waitUntilReaderIsEmpty(pcscd, slot: 0)
                let left = try #require(ripped.card as? Type4Card)
                let keys = try #require(left.chip?.keys).prefix(3).map {
                    $0.map { String(format: "%02X", $0) }.joined()
                }
                #expect(keys.allSatisfy(allowed.contains), "vanishing at command \(limit + 1): a key is unknown")

                let again = try reader.present(left)
                try await waitUntilReaderHasACard(pcscd, slot: 0)
                let finished = try await TagRouterBinary.run(
                    Self.command + ["--yes"], environment: environment(pcscd))
                #expect(
                    finished.status == 0,
                    "after vanishing at command \(limit + 1), the same command: \(finished.standardError)")
                await again.remove()
                try await waitUntilReaderIsEmpty(pcscd, slot: 0)
            }
        }
    }
}
