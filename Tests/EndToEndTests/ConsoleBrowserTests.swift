import Foundation
import HTTPTestSupport
import Logging
import NDEF
import StateStore
import TestSupport
import Testing
import VirtualTag

/// The web console in a real browser (docs/console.md): `Browser/console_browser.py` drives Debian's chromium
/// through Playwright against the real router on a private pcscd, and asks this test for each tag it needs
/// presented (the protocol is in the script's comment). A tap appears in Live within 1 s of being presented; a
/// refused tap shows its reason; a tag enrolled by tapping from the Tags page then opens its door rule; disabled
/// from the page, it is refused `disabled`; a hostile tag runs no script and breaks no CSP rule; 10,000 exported
/// rows download and parse. With `TAGROUTER_SCREENSHOTS=DIR` the script saves the documentation's screenshots
/// there (`make screenshots`).
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct ConsoleBrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let python = root + "/.build/console-venv/bin/python"
    static let script = root + "/Tests/EndToEndTests/Browser/console_browser.py"
    static let hostileName = "<img src=x onerror=window.__xss=1>\"onmouseover=window.__xss=1 \u{202E}gpj.exe"
    static let hostileURI = "javascript:window.__xss=1//\"onmouseover=window.__xss=1<script>window.__xss=1</script>"
    static let scenarios = [
        "sign-in", "tap-in-live-within-1s", "refused-tap-shows-its-reason", "enroll-by-tapping",
        "enrolled-tag-opens-the-door", "disabled-from-the-page-is-refused-disabled", "hostile-tag-runs-no-script",
        "export-of-10000-rows", "rules-page-and-phone",
    ]

    static func record(_ what: String) -> String {
        #"["/bin/sh", "-c", "printf '%s|%s|%s\n' \"$1\" \"$2\" \"$3\" >> OUT", "sh", "\#(what)", "{denied.reason}", "{tag.name}"]"#
    }

    static func rules(door: String) -> String {
        """
        version: 1
        defaults: { cooldown: 0 }
        rules:
          - name: front-door
            match: { reader: "\(door)", tags: [staff] }
            run: \(record("open"))
            denied: { run: \(record("denied")) }
          - name: shop
            match: { domains: [shop.example] }
            run: \(record("shop"))

        """
    }

    static var tagsFile: String {
        let name = hostileName.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(
            of: "\u{202E}", with: "\\u202E")
        return """
            version: 1
            tags:
              - name: "\(name)"
                uid: "04BAD0BAD0BA01"
                groups: [visitors]
                note: "<script>window.__xss=1</script>"

            """
    }

    static let carol: [UInt8] = [0x04, 0xCA, 0x11, 0xCA, 0x11, 0xCA, 0x01]

    /// An NTAG215 (room for the hostile tag's long message).
    static func card(uid: [UInt8], records: [NDEFRecord] = []) throws -> Type2Card {
        var options = Type2Card.Options(model: .ntag215)
        options.uid = uid
        let message = records.isEmpty ? [] : try NDEFMessage(records: records).encoded()
        return try Type2Card(model: .ntag215, message: message, options: options)
    }

    @Test(
        "the console in Chromium: a tap live within 1 s, a refusal, enroll by tapping, disable, a hostile tag, export")
    func consoleInABrowser() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        else {
            let missing =
                "the browser tests need Debian's chromium and Playwright in .build/console-venv: run scripts/setup test "
                + "(as root)"
            Issue.record("\(missing)")
            return
        }
        let port = try await HTTPTestServer.freePort()
        // A private pcscd names its first slot so (PrivatePCSCD.readerName(slot:)).
        let door = "Virtual PCD 00 00"
        try await RouterHarness.with(
            rules: Self.rules(door: door), arguments: ["--console", "127.0.0.1:\(port)"],
            files: ["tags.yaml": Self.tagsFile]
        ) { harness in
            #expect(harness.pcscd.readerName(slot: 0) == door)
            try await harness.router.waitForLog("console.listening")
            try Self.seedHistory(in: harness.directory + "/state", count: 10_000)
            let login = try await TagRouterBinary.run(
                ["console-login", "--state-dir", harness.directory + "/state"], environment: harness.pcscd.environment)
            #expect(login.status == 0, "\(login.standardError)")
            let link = login.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(link.hasPrefix("http://127.0.0.1:\(port)/login?token="))
            let work = harness.directory + "/browser"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            var arguments = [Self.script, "http://127.0.0.1:\(port)", link, work, harness.pcscd.readerName(slot: 0)]
            if let shots = ProcessInfo.processInfo.environment["TAGROUTER_SCREENSHOTS"] { arguments.append(shots) }
            let presenter = Task { try await Self.present(for: work, harness) }
            let output = try await TagRouterBinary.run(
                program: Self.python, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": work],
                timeout: .seconds(300))
            presenter.cancel()
            let problems = (try? await presenter.value) ?? []
            #expect(problems.isEmpty, "\(problems)")
            #expect(
                output.status == 0,
                "\(output.standardOutput)\n\(output.standardError)\n\(harness.router.log.suffix(4000))")
            for scenario in Self.scenarios {
                #expect(output.standardOutput.contains("ok \(scenario)\n"), "\(scenario): \(output.standardOutput)")
            }
            #expect(harness.dispatched.contains("open||carol"), "\(harness.dispatched)")
            #expect(harness.dispatched.contains("denied|disabled|carol"), "\(harness.dispatched)")
            #expect(harness.dispatched.contains("denied|unknown-tag|"), "\(harness.dispatched)")
        }
    }

    /// Answers the script's requests (`request-N` → present the tag → `done-N`) until cancelled; returns what went
    /// wrong.
    static func present(for work: String, _ harness: RouterHarness) async throws -> [String] {
        var problems: [String] = []
        var number = 1
        var reloadsBeforeEdit = harness.router.lines(containing: "rules.reloaded").count
        while !Task.isCancelled {
            let request = work + "/request-\(number)"
            guard let what = try? String(contentsOfFile: request, encoding: .utf8) else {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            let done = { _ = try? Data().write(to: URL(fileURLWithPath: work + "/done-\(number)")) }
            do {
                switch what {
                case "shop":
                    try await tap(harness, slot: 1, uid: [0x04, 0x5A, 0x0F, 0, 0, 0, 1], done: done) {
                        $0.dispatched.contains { $0.hasPrefix("shop|") }
                    } records: {
                        [URIRecord(uri: "https://shop.example/item/42").record]
                    }
                case "stranger":
                    try await tap(harness, slot: 0, uid: [0x04, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0x01], done: done) {
                        $0.dispatched.contains("denied|unknown-tag|")
                    }
                case "enroll carol":
                    try await waitUntil("the console's claim on the reader", timeout: .seconds(20)) {
                        FileManager.default.fileExists(atPath: harness.rulesDirectory + "/.learning")
                    }
                    reloadsBeforeEdit = harness.router.lines(containing: "rules.reloaded").count
                    try await tap(harness, slot: 0, uid: carol, done: done) {
                        ((try? String(contentsOfFile: $0.rulesDirectory + "/tags.yaml", encoding: .utf8)) ?? "")
                            .contains("04CA11CA11CA01")
                    }
                case "carol opens", "carol refused":
                    let expected = what == "carol opens" ? "open||carol" : "denied|disabled|carol"
                    try await waitUntil("the router's reload of the tags file", timeout: .seconds(15)) {
                        harness.router.lines(containing: "rules.reloaded").count > reloadsBeforeEdit
                    }
                    try await tap(harness, slot: 0, uid: carol, done: done) { $0.dispatched.contains(expected) }
                    reloadsBeforeEdit = harness.router.lines(containing: "rules.reloaded").count
                case "hostile":
                    let before = harness.router.lines(containing: "04BAD0BAD0BA01").count
                    try await tap(harness, slot: 1, uid: [0x04, 0xBA, 0xD0, 0xBA, 0xD0, 0xBA, 0x01], done: done) {
                        $0.router.lines(containing: "04BAD0BAD0BA01").count > before
                    } records: {
                        [
                            URIRecord(uri: hostileURI).record,
                            try TextRecord(text: "<script>window.__xss=1</script>\"onmouseover=", language: "en")
                                .record,
                        ]
                    }
                default:
                    problems.append("unknown request '\(what)'")
                    done()
                }
            } catch {
                problems.append("\(what): \(error)")
                done()
            }
            number += 1
        }
        return problems
    }

    /// Presents a tag, tells the script (`done`), waits until `handled` holds, and takes the tag away.
    static func tap(
        _ harness: RouterHarness, slot: Int, uid: [UInt8], done: () -> Void,
        until handled: (RouterHarness) -> Bool, records: () throws -> [NDEFRecord] = { [] }
    ) async throws {
        let tag = try harness.present(try card(uid: uid, records: try records()), slot: slot)
        done()
        try await waitUntil("the router to handle the tag", timeout: .seconds(15)) { handled(harness) }
        try await harness.remove(tag, slot: slot)
    }

    /// Writes `count` taps into the router's state database (beside the running router, as `history` reads it).
    static func seedHistory(in directory: String, count: Int) throws {
        var logger = Logger(label: "seed")
        logger.logLevel = .critical
        let database = try StateDatabase(directory: directory, logger: logger)
        let start = Date(timeIntervalSinceNow: -86_400)
        try database.recordTaps(
            (0..<count).map { index in
                TapRecord(
                    time: start + Double(index) / 100, reader: "seeded reader", uid: "04000000000001",
                    rule: "front-door", outcome: index % 3 == 0 ? .denied : .matched, detail: "seeded \(index)")
            })
    }
}
