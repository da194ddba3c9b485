import Foundation
import TestSupport
import Testing
import VirtualTag

/// Issue 30, the shelf: `removed`, `held` and `returned` through a real pcscd and vpcd with the real router
/// (docs/rules.md, "Tags that stay on the reader"). Every line a rule's command writes is
/// `<event>|<reader>|<presentation id>|<presented_for_ms>|<rule>`.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct PresentationEventTests {
    static let album: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
    static let control: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x81]

    /// The shelf rules: `grace` for `removed`, `held` after `hold`, `returned` within `window`; `tapCommand`
    /// replaces the tap's command (to make it slow).
    static func rules(
        grace: String = "1500ms", hold: String = "2500ms", window: String = "20s", tapCommand: String? = nil
    ) -> String {
        let record =
            #"["/bin/sh", "-c", "printf '%s|%s|%s|%s|%s\n' \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" >> OUT", "sh", "{event}", "{reader}", "{presentation_id}", "{presented_for_ms}", "{rule}"]"#
        let tap = tapCommand.map { command in
            #"["/bin/sh", "-c", "\#(command); printf '%s|%s|%s|%s|%s\n' \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" >> OUT", "sh", "{event}", "{reader}", "{presentation_id}", "{presented_for_ms}", "{rule}"]"#
        }
        return """
            version: 1
            defaults: { cooldown: 0 }
            rules:
              - name: album
                match: { uid: ["04A1B2C3D4E580"] }
                run: \(tap ?? record)
                on:
                  removed: { after: \(grace), run: \(record) }
                  held: { for: \(hold), run: \(record) }
                  returned: { within: \(window), run: \(record) }
              - name: control
                match: { uid: ["04A1B2C3D4E581"] }
                run: \(record)

            """
    }

    /// The lines written, split into fields.
    static func events(_ harness: RouterHarness) -> [[String]] {
        harness.dispatched.map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    func card(_ uid: [UInt8]) throws -> Type2Card {
        var options = Type2Card.Options(model: .ntag213)
        options.uid = uid
        return try Type2Card(model: .ntag213, message: [], options: options)
    }

    @Test("tap, then removed once the grace has passed, with one presentation id and the time on the reader")
    func removedAfterTheGrace() async throws {
        try await RouterHarness.with(rules: Self.rules(hold: "1h")) { harness in
            let tag = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "tap|")
            try await Task.sleep(for: .milliseconds(700))
            try await harness.remove(tag, slot: 0)
            try await Task.sleep(for: .milliseconds(500))
            #expect(Self.events(harness).map(\.[0]) == ["tap"], "the grace has not passed yet")
            try await harness.waitForDispatch(containing: "removed|")
            let events = Self.events(harness)
            #expect(events.map(\.[0]) == ["tap", "removed"])
            #expect(events.map(\.[1]) == [harness.pcscd.readerName(slot: 0), harness.pcscd.readerName(slot: 0)])
            #expect(events[0][2] == events[1][2], "one presentation id")
            let presentedFor = Int(events[1][3]) ?? 0
            #expect(presentedFor >= 600 && presentedFor < 10_000, "on the reader for \(presentedFor) ms")
            try await harness.router.waitForLog(" info removed ")
            // The history has a row for each event, linked by the presentation id.
            let history = try await TagRouterBinary.run(
                ["history", "--state-dir", harness.directory + "/state", "--json"],
                environment: harness.pcscd.environment)
            let json = try JSONSerialization.jsonObject(with: Data(history.standardOutput.utf8)) as? [String: Any]
            let taps = try #require(json?["taps"] as? [[String: Any]])
            #expect(taps.compactMap { $0["event"] as? String } == ["removed", "tap"], "\(history.standardOutput)")
            #expect(Set(taps.compactMap { $0["presentationId"] as? String }) == [events[0][2]])
        }
    }

    @Test("taken away and put back within the grace: no event, no second tap")
    func aWobbleFiresNothing() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "4s", hold: "1h")) { harness in
            let tag = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "tap|")
            try await harness.remove(tag, slot: 0)
            let back = try harness.present(try card(Self.album))
            try await harness.router.waitForLog("tap.continued")
            // The grace the first removal started comes to its end with the tag back: it decides nothing.
            try await harness.router.waitForLog("presentation.verdict=grace-over")
            #expect(Self.events(harness).map(\.[0]) == ["tap"])
            // Taken away for good: one removed, for the same presentation.
            try await harness.remove(back, slot: 0)
            try await harness.waitForDispatch(containing: "removed|", timeout: .seconds(15))
            let events = Self.events(harness)
            #expect(events.map(\.[0]) == ["tap", "removed"])
            #expect(events[0][2] == events[1][2])
        }
    }

    @Test("held fires once at its time, and not for a shorter presentation")
    func heldOnceAndOnlyWhenHeldLongEnough() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "500ms", hold: "2s", window: "1ms")) { harness in
            let short = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "tap|")
            try await harness.remove(short, slot: 0)
            try await harness.waitForDispatch(containing: "removed|")
            #expect(Self.events(harness).map(\.[0]) == ["tap", "removed"])

            // The short stay's hold would have been due before the long one's: once the long one's `held` is in,
            // a `held` of the short one would be too.
            let long = try harness.present(try card(Self.album))
            try await harness.waitForDispatches(3)
            try await harness.waitForDispatch(containing: "held|", timeout: .seconds(10))
            try await harness.router.waitForLog("presentation.verdict=held")
            let events = Self.events(harness)
            #expect(events.map(\.[0]) == ["tap", "removed", "tap", "held"])
            #expect(events[2][2] == events[3][2] && events[2][2] != events[0][2])
            #expect((Int(events[3][3]) ?? 0) >= 2_000)
            try await harness.remove(long, slot: 0)
            try await harness.waitForDispatches(5)
            #expect(Self.events(harness).map(\.[0]) == ["tap", "removed", "tap", "held", "removed"])
        }
    }

    @Test("put back within the window: returned instead of the tap, in the same presentation")
    func returnedRunsInsteadOfTheTap() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "500ms", hold: "1h")) { harness in
            let first = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "tap|")
            try await harness.remove(first, slot: 0)
            try await harness.waitForDispatch(containing: "removed|")
            let again = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "returned|")
            try await harness.remove(again, slot: 0)
            try await harness.waitForDispatches(4)
            let events = Self.events(harness)
            #expect(events.map(\.[0]) == ["tap", "removed", "returned", "removed"])
            #expect(Set(events.map(\.[2])).count == 1, "one presentation: \(events)")
            try await harness.router.waitForLog("presentation.event=returned")
        }
    }

    @Test("a control card (no on: block) fires nothing when taken away")
    func aControlCardsRemovalFiresNothing() async throws {
        try await RouterHarness.with(rules: Self.rules()) { harness in
            let tag = try harness.present(try card(Self.control))
            try await harness.waitForDispatch(containing: "tap|")
            try await harness.remove(tag, slot: 0)
            // The router has handled the removal; a presentation no rule follows sets no timer, so nothing can come
            // later.
            try await harness.router.waitForLog("pcsc.card.removed")
            #expect(Self.events(harness).map(\.[0]) == ["tap"])
            #expect(Self.events(harness).first?.last == "control")
            #expect(harness.router.lines(containing: "presentation.grace_ended").isEmpty)
        }
    }

    @Test("taken away while the tap's command runs: removed runs after it")
    func removedWaitsForTheTapsActions() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "200ms", hold: "1h", tapCommand: "sleep 2")) {
            harness in
            let tag = try harness.present(try card(Self.album))
            try await harness.router.waitForLog("pcsc.card.presented")
            try await Task.sleep(for: .milliseconds(500))
            try await harness.remove(tag, slot: 0)
            try await harness.waitForDispatches(2, timeout: .seconds(10))
            #expect(Self.events(harness).map(\.[0]) == ["tap", "removed"])
        }
    }

    @Test("two readers keep separate presentations")
    func twoReaders() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "500ms", hold: "1h")) { harness in
            let left = try harness.present(try card(Self.album), slot: 0)
            let right = try harness.present(try card(Self.album), slot: 1)
            try await harness.waitForDispatches(2)
            try await harness.remove(left, slot: 0)
            try await harness.waitForDispatches(3)
            // The right reader's tag stayed: its presentation has no grace running, so nothing else can come.
            try await harness.router.waitForLog("presentation.verdict=closed")
            #expect(harness.router.lines(containing: "presentation.grace_ended").count == 1)
            var events = Self.events(harness)
            #expect(events.map(\.[0]) == ["tap", "tap", "removed"])
            #expect(events[2][1] == harness.pcscd.readerName(slot: 0))
            try await harness.remove(right, slot: 1)
            try await harness.waitForDispatches(4)
            events = Self.events(harness)
            #expect(events[3][0] == "removed" && events[3][1] == harness.pcscd.readerName(slot: 1))
            #expect(Set(events.map(\.[2])).count == 2)
            #expect(events[2][2] != events[3][2])
        }
    }

    @Test("emulate's gestures: put down, taken away past the grace, put back within the window")
    func emulateRepeatsAGesture() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "800ms", hold: "1h")) { harness in
            let run = try await TagRouterBinary.run(
                [
                    "emulate", "--ndef", "", "--vpcd", "127.0.0.1:\(harness.pcscd.vpcdPort(slot: 0))", "--repeat", "2",
                    "--hold", "1500ms", "--gap", "2500ms",
                ], environment: harness.pcscd.environment, timeout: .seconds(30))
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("(2 of 2)"), "\(run.standardOutput)")
            try await harness.waitForDispatches(4)
            #expect(Self.events(harness).map(\.[0]) == ["tap", "removed", "returned", "removed"])
        }
    }

    @Test("a router stopped with a tag on the reader fires no removed; the next one sees a tap")
    func restartWithATagPresent() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "300ms", hold: "1h")) { harness in
            let tag = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "tap|")
            let (status, _) = try await harness.router.terminate()
            // Exited: every command it started has ended, so nothing more can be written.
            #expect(status == 0)
            #expect(Self.events(harness).map(\.[0]) == ["tap"], "nothing at shutdown")
            let next = try harness.startAnotherRouter(logName: "second.log")
            try await harness.waitForDispatches(2, timeout: .seconds(15))
            try await harness.remove(tag, slot: 0, router: next)
            try await harness.waitForDispatches(3)
            let events = Self.events(harness)
            #expect(events.map(\.[0]) == ["tap", "tap", "removed"])
            #expect(events[0][2] != events[1][2] && events[1][2] == events[2][2])
            _ = try await next.terminate()
        }
    }

    @Test("pcscd restarting with the tag on the reader fires neither removed nor a new tap")
    func pcscdRestartWithTheTagPresent() async throws {
        try await RouterHarness.with(rules: Self.rules(grace: "500ms", hold: "1h")) { harness in
            let tag = try harness.present(try card(Self.album))
            try await harness.waitForDispatch(containing: "tap|")
            try await harness.pcscd.restart()
            await tag.waitUntilGone()
            // For the reader the tag never left: vpcd's card is there again when pcscd is back.
            let back = try harness.present(try card(Self.album))
            try await harness.router.waitForLog("pcscd is back", timeout: .seconds(20))
            try await harness.router.waitForLog("tap.continued", timeout: .seconds(20))
            try await Task.sleep(for: .seconds(3))
            #expect(Self.events(harness).map(\.[0]) == ["tap"], "\(harness.router.log)")
            try await harness.remove(back, slot: 0)
            try await harness.waitForDispatches(2)
            #expect(Self.events(harness).map(\.[0]) == ["tap", "removed"])
        }
    }
}
