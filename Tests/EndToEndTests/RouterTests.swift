import Foundation
import TestSupport
import Testing
import VirtualTag

/// `tagrouter run`, the built binary, against a real private pcscd with virtual tags (issue 6).
@Suite(.needsRoot, .serialized) struct RouterTests {
    static let exampleRules =
        "version: 1\nrules:\n"
        + recordingRule(name: "door", match: "{ domains: [example.com] }", marker: "door", extra: "cooldown: 2s")

    @Test func matchingTagRunsTheCommandOnceWithTheExactArgvAndOtherTagsAreIgnored() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let uri = "https://example.com/door?x=$(id);rm%20-rf"
            let tag = try harness.present(uri: uri)
            try await harness.waitForDispatches(1)
            await tag.remove()
            #expect(harness.dispatched == ["door|Virtual PCD 00 00|\(uri)"])
            let other = try harness.present(uri: "https://other.example.org/")
            try await harness.router.waitForLog("tap.ignored")
            await other.remove()
            #expect(harness.dispatched.count == 1)
            #expect(harness.router.lines(containing: " info tap ").count == 1)
        }
    }

    @Test func aTagRestingTenSecondsDispatchesOnce() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let tag = try harness.present(uri: "https://example.com/shelf")
            await tag.hold(for: .seconds(10))
            await tag.remove()
            try await harness.router.waitForLog("pcsc.card.removed")
            #expect(harness.dispatched.count == 1)
        }
    }

    @Test func aRetapWithinCooldownIsSuppressedAndAfterItFires() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let first = try harness.present(uri: "https://example.com/door")
            try await harness.waitForDispatches(1)
            let dispatchedAt = ContinuousClock.now
            await first.remove()
            try await harness.router.waitForLog("pcsc.card.removed")
            let second = try harness.present(uri: "https://example.com/door")
            try await harness.router.waitForLog("tap.suppressed")
            await second.remove()
            #expect(harness.dispatched.count == 1)
            try await Task.sleep(until: dispatchedAt + .milliseconds(2_300))
            let third = try harness.present(uri: "https://example.com/door")
            try await harness.waitForDispatches(2)
            await third.remove()
        }
    }

    @Test func twoReadersTappedTogetherDispatchOnceEach() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let left = try harness.present(uri: "https://example.com/left", slot: 0)
            let right = try harness.present(
                uri: "https://example.com/right", slot: 1, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
            try await harness.waitForDispatches(2)
            await left.remove()
            await right.remove()
            // Nothing can dispatch once both removals are handled (the tap's log line ends its dispatch).
            try await harness.router.waitForLog("pcsc.card.removed", count: 2)
            #expect(
                harness.dispatched.sorted() == [
                    "door|Virtual PCD 00 00|https://example.com/left",
                    "door|Virtual PCD 00 01|https://example.com/right",
                ])
        }
    }

    @Test func sighupWithABrokenFileKeepsTheOldRulesAndAFixedFileIsPickedUp() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let file = harness.rulesDirectory + "/10-test.yaml"
            let good = try String(contentsOfFile: file, encoding: .utf8)
            try (good + "  - name: broken\n    match: {}\n").write(toFile: file, atomically: true, encoding: .utf8)
            harness.router.signal(SIGHUP)
            try await harness.router.waitForLog("rules.reload_failed")
            let tap = try harness.present(uri: "https://example.com/still")
            try await harness.waitForDispatches(1)
            await tap.remove()
            #expect(harness.dispatched.last?.hasPrefix("door|") == true)
            let fixed =
                "version: 1\nrules:\n"
                + recordingRule(name: "door-v2", match: "{ domains: [example.com] }", marker: "v2")
            try fixed.replacingOccurrences(of: "OUT", with: harness.outputPath).write(
                toFile: file, atomically: true, encoding: .utf8)
            try await harness.router.waitForLog("rules.reloaded")
            try await harness.router.waitForLog("pcsc.card.removed")
            let again = try harness.present(
                uri: "https://example.com/new", uid: [0x04, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44])
            try await harness.waitForDispatches(2)
            await again.remove()
            #expect(harness.dispatched.last == "v2|Virtual PCD 00 00|https://example.com/new")
        }
    }

    @Test func afterPcscdRestartsTheNextTapDispatches() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            try await harness.pcscd.restart()
            try await harness.router.waitForLog("pcscd is back", timeout: .seconds(20))
            try await harness.router.waitForLog(RouterHarness.readerAdded, count: 4)
            let tap = try harness.present(uri: "https://example.com/after-restart")
            try await harness.waitForDispatches(1)
            await tap.remove()
            #expect(harness.router.isRunning)
        }
    }

    @Test func aTagRippedAwayMidReadDispatchesNothingAndTheNextFullTapOnce() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let ripped = try harness.present(uri: "https://example.com/ripped", answeringAtMost: 3)
            try await harness.router.waitForLog("tap.read_failed")
            await ripped.waitUntilGone()
            try await harness.router.waitForLog("pcsc.card.removed")
            #expect(harness.dispatched.isEmpty)
            let full = try harness.present(uri: "https://example.com/full")
            try await harness.waitForDispatches(1)
            await full.remove()
            try await harness.router.waitForLog("pcsc.card.removed", count: 2)
            #expect(harness.dispatched == ["door|Virtual PCD 00 00|https://example.com/full"])
        }
    }

    @Test func dryRunLogsWhatItWouldDoAndDoesNothing() async throws {
        try await RouterHarness.with(rules: Self.exampleRules, arguments: ["--dry-run"]) { harness in
            let tap = try harness.present(uri: "https://example.com/dry")
            try await harness.router.waitForLog("dry-run: would run")
            await tap.remove()
            try await harness.router.waitForLog("pcsc.card.removed")
            #expect(harness.dispatched.isEmpty)
        }
    }

    @Test func jsonLogsHaveOneObjectPerTap() async throws {
        try await RouterHarness.with(rules: Self.exampleRules, arguments: ["--log-format", "json"]) { harness in
            let tap = try harness.present(uri: "https://example.com/json")
            try await harness.waitForDispatches(1)
            await tap.remove()
            try await harness.router.waitForLog(#""message":"tap""#)
            let line = try #require(harness.router.lines(containing: #""message":"tap""#).first)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object["reader.name"] == "Virtual PCD 00 00")
            #expect(object["tag.uid"] == "04A1B2C3D4E580")
            #expect(object["rule.name"] == "door")
            #expect(object["ndef.uri"] == "https://example.com/json")
            #expect(object["action.outcome"] == "run ok (exit 0)")
        }
    }

    /// A rule that matches by UID and opens `{uri}` opens what a cloned tag carries only when it is http or https:
    /// a `file:` URI is refused and logged, never handed to the opener.
    @Test func anOpenRuleMatchedByUIDNeverOpensAFileURI() async throws {
        let bin = NSTemporaryDirectory() + "opener-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        let opened = bin + "/opened.txt"
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> \(opened)\n"
            .write(toFile: bin + "/xdg-open", atomically: true, encoding: .utf8)
        chmod(bin + "/xdg-open", 0o755)
        let rules = """
            version: 1
            rules:
              - name: by-uid
                cooldown: 0
                match: { uid: ["04A1B2C3D4E580"] }
                open: "{uri}"

            """
        try await RouterHarness.with(rules: rules, environment: ["PATH": bin + ":/usr/bin:/bin"]) { harness in
            let stranger = try harness.present(uri: "file:///etc/passwd")
            try await harness.router.waitForLog("open.refused")
            try await harness.remove(stranger, slot: 0, router: harness.router)
            let own = try harness.present(uri: "https://example.com/door")
            try await harness.router.waitForLog("action.outcome=\"open ok (exit 0)\"")
            await own.remove()
            #expect((try? String(contentsOfFile: opened, encoding: .utf8)) == "https://example.com/door\n")
        }
    }

    /// Issue 29: a rule's command sees `PATH`, `HOME`, the `TAG_*` variables and what its `env` names, never a
    /// variable of the router's environment such as a token from /etc/tagrouter/env.
    @Test func aCommandSeesNoneOfTheRoutersSecrets() async throws {
        let rules = """
            version: 1
            rules:
              - name: env
                match: { domains: [example.com] }
                run:
                  argv: ["/bin/sh", "-c", "/usr/bin/env | sort > OUT"]
                  env: { NAMED: "${NAMED_TOKEN}" }

            """
        let environment = ["ROUTER_TOKEN": "router-secret-5e1f", "NAMED_TOKEN": "named-7a3b", "HOME": "/root"]
        try await RouterHarness.with(rules: rules, environment: environment) { harness in
            let tag = try harness.present(uri: "https://example.com/env")
            try await harness.router.waitForLog(" info tap ")
            await tag.remove()
            let seen = Set(harness.dispatched.compactMap { $0.split(separator: "=").first.map(String.init) })
            #expect(seen.contains("PATH") && seen.contains("TAG_URI") && seen.contains("NAMED"), "\(seen)")
            #expect(harness.dispatched.contains("NAMED=named-7a3b"))
            #expect(!seen.contains("ROUTER_TOKEN") && !seen.contains("NAMED_TOKEN"), "\(harness.dispatched)")
            #expect(!harness.dispatched.joined().contains("router-secret-5e1f"))
            #expect(!seen.contains("PCSCLITE_CSOCK_NAME"), "the router's own settings stay the router's")
        }
    }

    @Test func sigtermExitsZeroWithinFiveSeconds() async throws {
        try await RouterHarness.with(rules: Self.exampleRules) { harness in
            let (status, _) = try await harness.router.terminate(timeout: .seconds(5))
            #expect(status == 0)
            #expect(harness.router.log.contains("stopped"))
        }
    }

    @Test func invalidRulesAtStartPrintTheDiagnosticsAndExitOne() async throws {
        let directory = NSTemporaryDirectory() + "router-invalid-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "version: 1\nrules:\n  - name: bad\n    match: {}\n    open: \"{uri}\"\n"
            .write(toFile: directory + "/r.yaml", atomically: true, encoding: .utf8)
        let output = try await TagRouterBinary.run(
            ["run", "--rules", directory + "/r.yaml", "--state-dir", directory + "/state"],
            environment: ProcessInfo.processInfo.environment)
        #expect(output.status == 1)
        #expect(output.standardError.contains(directory + "/r.yaml:4:12: error:"), "\(output.standardError)")
    }
}
