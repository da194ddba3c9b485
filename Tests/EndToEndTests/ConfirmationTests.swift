import Foundation
import TestSupport
import Testing
import VirtualTag

/// The desktop asks before a stranger's tag opens a link (docs/rules.md, "Confirmation before open"), through a
/// real pcscd and vpcd, the real router and a real notification server: Debian's `dunst` under Xvfb on a private
/// session bus, answered with `dunstctl`; and with no server at all.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct ConfirmationTests {
    static let rules = """
        version: 1
        defaults: { cooldown: 0 }
        rules:
          - name: own-fob
            match: { uid: ["04A1B2C3D4E581"] }
            open: "https://example.net/own"
          - name: links
            match: { domains: [example.com] }
            open: "{uri}"

        """

    /// A stub `xdg-open` that appends what it is given to `opened.txt`, in a folder of its own.
    static func withOpener(
        _ body: (_ path: String, _ opened: @escaping () -> [String]) async throws -> Void
    ) async throws {
        let bin = NSTemporaryDirectory() + "opener-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: bin) }
        let file = bin + "/opened.txt"
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> \(file)\n".write(
            toFile: bin + "/xdg-open", atomically: true, encoding: .utf8)
        chmod(bin + "/xdg-open", 0o755)
        try await body(bin + ":/usr/bin:/bin") {
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
    }

    /// A router with ``rules`` on a private desktop session (dunst when `notificationServer`), its opener the stub
    /// of ``withOpener(_:)``.
    static func withDesktopRouter(
        notificationServer: Bool = true,
        _ body: (_ desktop: DesktopSession, _ harness: RouterHarness, _ opened: @escaping () -> [String]) async throws
            -> Void
    ) async throws {
        try await DesktopSession.with(notificationServer: notificationServer) { desktop in
            try await withOpener { path, opened in
                var environment = desktop.environment
                environment["PATH"] = path
                try await RouterHarness.with(rules: rules, environment: environment) { harness in
                    try await body(desktop, harness, opened)
                }
            }
        }
    }

    /// Waits for dunst to show `count` notifications; on failure, the router's log says why.
    static func waitForNotifications(_ count: Int, _ desktop: DesktopSession, _ harness: RouterHarness) async throws {
        do {
            try await desktop.waitForNotifications(count)
        } catch {
            throw HarnessError("\(error)\n\(harness.router.log)")
        }
    }

    @Test("an untrusted tag's link opens only on Open; dismissed, it stays shut; the owner's fob opens at once")
    func asksAndOpensOnlyOnOpen() async throws {
        try await Self.withDesktopRouter { desktop, harness, opened in
            // Open: the notification's default action.
            let first = try harness.present(uri: "https://example.com/a?x=%3Cb%3E&y=1")
            try await Self.waitForNotifications(1, desktop, harness)
            #expect(opened().isEmpty, "nothing opens before the answer")
            _ = try await desktop.dunstctl(["action", "0"])
            try await harness.router.waitForLog("action.outcome=\"open ok (exit 0)\"")
            #expect(opened() == ["https://example.com/a?x=%3Cb%3E&y=1"])
            try await harness.remove(first, slot: 0)
            // Dismissed: closed without an action.
            let second = try harness.present(uri: "https://example.com/b")
            try await Self.waitForNotifications(1, desktop, harness)
            _ = try await desktop.dunstctl(["close"])
            try await harness.router.waitForLog("open declined (not confirmed)")
            #expect(opened() == ["https://example.com/a?x=%3Cb%3E&y=1"])
            try await harness.remove(second, slot: 0)
            // A UID the rule lists is trusted: no question.
            let own = try harness.present(
                uri: "https://example.com/ignored", uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x81])
            try await harness.router.waitForLog("action.outcome=\"open ok (exit 0)\"", count: 2)
            #expect(opened().last == "https://example.net/own")
            #expect(try await desktop.dunstctl(["count", "displayed"]) == "0")
            try await harness.remove(own, slot: 0)
        }
    }

    @Test("a question nobody answers expires with the notification, and nothing opens")
    func anUnansweredQuestionOpensNothing() async throws {
        try await Self.withDesktopRouter { desktop, harness, opened in
            let tag = try harness.present(uri: "https://example.com/unanswered")
            try await Self.waitForNotifications(1, desktop, harness)
            // Debian's dunst shows a normal notification for 10 seconds, then closes it as expired.
            try await harness.router.waitForLog("open declined (not confirmed)", timeout: .seconds(40))
            #expect(opened().isEmpty)
            #expect(try await desktop.dunstctl(["count", "displayed"]) == "0")
            try await harness.remove(tag, slot: 0)
        }
    }

    @Test("only the notification server answers: an ActionInvoked signal from another client of the bus opens nothing")
    func aForgedAnswerOpensNothing() async throws {
        try await Self.withDesktopRouter { desktop, harness, opened in
            let tag = try harness.present(uri: "https://example.com/forged")
            try await Self.waitForNotifications(1, desktop, harness)
            // Notification ids are sequential from 1: a client that guesses sends every early id, with both
            // actions that open.
            for id in 1...4 {
                for action in ["default", "open"] {
                    _ = try await desktop.dbusSend([
                        "--session", "--type=signal", "/org/freedesktop/Notifications",
                        "org.freedesktop.Notifications.ActionInvoked", "uint32:\(id)", "string:\(action)",
                    ])
                }
            }
            // dunst's own answer comes after the forged ones: the question is still open, and dismissing it
            // opens nothing.
            #expect(try await desktop.dunstctl(["count", "displayed"]) == "1")
            _ = try await desktop.dunstctl(["close"])
            try await harness.router.waitForLog("open declined (not confirmed)")
            #expect(opened().isEmpty)
            #expect(harness.router.lines(containing: "open ok").isEmpty)
            try await harness.remove(tag, slot: 0)
        }
    }

    @Test("one question at a time: the same link from another reader while it is on screen is dropped")
    func theSameLinkIsAskedOnce() async throws {
        try await Self.withDesktopRouter { desktop, harness, opened in
            let first = try harness.present(uri: "https://example.com/same", slot: 0)
            try await Self.waitForNotifications(1, desktop, harness)
            let second = try harness.present(uri: "https://example.com/same", slot: 1)
            try await harness.router.waitForLog("open.question_dropped")
            try await harness.router.waitForLog(
                "open declined (not confirmed: a question about the same link is already shown or waiting)")
            #expect(try await desktop.dunstctl(["count", "displayed"]) == "1")
            _ = try await desktop.dunstctl(["action", "0"])
            try await harness.router.waitForLog("action.outcome=\"open ok (exit 0)\"")
            #expect(opened() == ["https://example.com/same"])
            try await harness.remove(first, slot: 0)
            try await harness.remove(second, slot: 1)
        }
    }

    @Test("SIGTERM with a question on screen closes it and stops the router at once, not at the question's limit")
    func sigtermClosesTheQuestion() async throws {
        try await Self.withDesktopRouter { desktop, harness, opened in
            let tag = try harness.present(uri: "https://example.com/stopping")
            try await Self.waitForNotifications(1, desktop, harness)
            // Unanswered, the question would last until dunst expires it (10 s) or the router's limit (2 min):
            // 8 s is a bound only a router that closes it meets (the terminate would otherwise hang).
            let (status, _) = try await harness.router.terminate(timeout: .seconds(8))
            #expect(status == 0, "\(harness.router.log)")
            #expect(
                harness.router.lines(containing: "open declined (not confirmed: the router is stopping)").count == 1,
                "\(harness.router.log)")
            try await desktop.waitForNotifications(0)
            #expect(opened().isEmpty)
            await tag.remove()
        }
    }

    @Test("with no notification server nothing opens, and the router says why once")
    func noServerNothingOpens() async throws {
        try await Self.withDesktopRouter(notificationServer: false) { _, harness, opened in
            for round in 1...2 {
                let tag = try harness.present(uri: "https://example.com/\(round)")
                try await harness.router.waitForLog("open declined (not confirmed:", count: round)
                try await harness.remove(tag, slot: 0)
            }
            #expect(opened().isEmpty)
            #expect(harness.router.lines(containing: "open.cannot_ask").count == 1)
        }
    }
}
