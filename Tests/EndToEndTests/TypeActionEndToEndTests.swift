import Foundation
import NDEF
import TestSupport
import Testing
import VirtualTag

/// `type:` through a real X server (Xvfb), a real `xdotool` and a real text window (docs/rules.md, "`type`: a
/// keyboard at the desk"): an enrolled tag's UID is typed with the rule's own Return; a tag whose text would type
/// a line break of its own types nothing.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct TypeActionEndToEndTests {
    static let rules = """
        version: 1
        defaults: { cooldown: 0 }
        rules:
          - name: badge
            match: { uid: [04A1B2C3D4E580] }
            type: "{uid}\\n"
          - name: label
            match: { uid: [04A1B2C3D4E581] }
            type: "{text}\\n"
        """

    @Test("a badge's UID is typed into the focused window; a tag's text with its own line break types nothing")
    func typesIntoTheFocusedWindow() async throws {
        try await DesktopSession.with(notificationServer: false) { desktop in
            let typed = NSTemporaryDirectory() + "typed-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: typed) }
            try await desktop.withTextWindow(recordingTo: typed) {
                try await RouterHarness.with(rules: Self.rules, environment: desktop.environment) { harness in
                    let badge = try harness.present(uri: "https://example.com/badge")
                    try await harness.router.waitForLog("action.outcome=\"type ok (exit 0)\"")
                    try await harness.remove(badge, slot: 0)
                    try await Self.waitFor(typed, toHold: "04A1B2C3D4E580\n", harness)

                    var options = Type2Card.Options(model: .ntag213)
                    options.uid = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x81]
                    let hostile = try NDEFMessage(records: [
                        TextRecord(text: "hello\nrm -rf ~", language: "en").record
                    ]).encoded()
                    let label = try harness.present(try Type2Card(model: .ntag213, message: hostile, options: options))
                    try await harness.router.waitForLog("would type the character U+A into the desktop")
                    try await harness.remove(label, slot: 0)
                    // The badge again: its line comes next, with nothing of the label's before it.
                    let again = try harness.present(uri: "https://example.com/badge")
                    try await harness.router.waitForLog("action.outcome=\"type ok (exit 0)\"", count: 2)
                    try await harness.remove(again, slot: 0)
                    try await Self.waitFor(typed, toHold: "04A1B2C3D4E580\n04A1B2C3D4E580\n", harness)
                }
            }
        }
    }

    /// Waits until the text window's file holds exactly `text`; on failure the router's log says why.
    static func waitFor(_ path: String, toHold text: String, _ harness: RouterHarness) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var held = ""
        while ContinuousClock.now < deadline {
            held = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if held == text { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the window holds \(held.debugDescription), not \(text.debugDescription)\n\(harness.router.log)")
    }
}
