import Foundation
import ReaderFeedback
import TestSupport
import Testing
import VirtualTag

/// Reader feedback (docs/tags.md, "Reader feedback") through a real pcscd and vpcd with the real router: an
/// accepted tap, a refusal, an ignored tag and a tag pulled away mid-read each leave the configured LED and buzzer
/// commands in the emulated ACR122U-class reader, in order, after the read's commands; a rule's `feedback:`
/// replaces its reader's; a reader that loses the card gets its failure logged once.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ReaderFeedbackEndToEndTests {
    /// A window that does not hold now (in UTC), so that the night rule refuses its tag.
    static func closedWindow(now: Date = Date()) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let hour = calendar.component(.hour, from: now)
        let (start, end) = ((hour + 2) % 24, (hour + 3) % 24)
        return String(format: "%02d:00-%02d:00", start, end == 0 ? 24 : end)
    }

    static func rules() -> String {
        """
        version: 1
        defaults: { cooldown: 0, timeZone: UTC }
        readers:
          - name: "Virtual PCD 00 00"
            feedback:
              accepted: { led: green, beep: short }
              denied:   { led: red, beep: long, blink: 3 }
              ignored:  { led: orange }
              failed:   { led: red, blink: 2 }
        rules:
        \(recordingRule(name: "door", match: "{ domains: [door.example] }", marker: "door"))\
        \(recordingRule(name: "desk", match: "{ domains: [desk.example] }", marker: "desk", extra: "feedback: { accepted: { led: green, beep: twice } }"))\
          - name: night
            match: { domains: [night.example] }
            when: [{ time: "\(closedWindow())" }]
            run: [/bin/true]
            denied: { run: ["/bin/sh", "-c", "echo denied >> OUT"] }

        """
    }

    static func bytes(_ text: String) -> [UInt8] { text.split(separator: " ").map { UInt8($0, radix: 16)! } }

    /// Checks that the reader's commands came after every tag command and are `expected`.
    func expectFeedback(_ tag: PresentedCard, _ expected: [String], _ what: String) {
        let exchanges = tag.exchanges
        let firstReader = exchanges.firstIndex(where: \.isReaderCommand) ?? exchanges.endIndex
        #expect(firstReader > 0, "\(what): the tag's commands come first")
        #expect(exchanges[firstReader...].allSatisfy { $0.isReaderCommand }, "\(what): \(exchanges)")
        #expect(exchanges[firstReader...].map(\.command) == expected.map(Self.bytes), "\(what): \(exchanges)")
    }

    @Test("accepted, refused, ignored and pulled away: each leaves its commands after the read's, in order")
    func outcomes() async throws {
        try await RouterHarness.with(rules: Self.rules()) { harness in
            let outcome = { (name: String) in "feedback.outcome=\(name)" }
            // Accepted: the reader's signal.
            var tag = try harness.present(uri: "https://door.example/1")
            try await harness.waitForDispatch(containing: "door|")
            try await harness.router.waitForLog(outcome("accepted"))
            expectFeedback(tag, ["FF 00 40 0E 04 01 00 01 01"], "accepted")
            #expect(tag.lights.color == .green)
            #expect(tag.feedback == ["led=green beep=100ms×1"])
            try await harness.remove(tag, slot: 0)

            // Accepted by a rule with its own feedback: it replaces the reader's for that outcome.
            tag = try harness.present(uri: "https://desk.example/1")
            try await harness.waitForDispatch(containing: "desk|")
            try await harness.router.waitForLog(outcome("accepted"), count: 2)
            expectFeedback(tag, ["FF 00 40 0E 04 01 01 02 01"], "desk")
            try await harness.remove(tag, slot: 0)

            // Refused: the beep with the colour, then three red blinks.
            tag = try harness.present(uri: "https://night.example/1")
            try await harness.waitForDispatch(containing: "denied")
            try await harness.router.waitForLog(outcome("denied"))
            expectFeedback(tag, ["FF 00 40 0D 04 05 00 01 01", "FF 00 40 5D 04 01 01 03 00"], "denied")
            #expect(tag.feedback == ["led=red beep=500ms×1", "led=red blink=red×3"])
            try await harness.remove(tag, slot: 0)

            // Ignored.
            tag = try harness.present(uri: "https://nobody.example/")
            try await harness.router.waitForLog(outcome("ignored"))
            expectFeedback(tag, ["FF 00 40 0F 04 00 00 00 00"], "ignored")
            #expect(tag.lights.color == .orange)
            try await harness.remove(tag, slot: 0)

            // Pulled away after two commands: the reader answers 63 00 for the tag, and still takes its own.
            tag = try VirtualReader(port: harness.pcscd.vpcdPort(slot: 0), logger: harness.logger)
                .present(try Self.card("https://door.example/2"), leavingFieldAfter: 2)
            try await harness.router.waitForLog("tap.read_failed")
            try await harness.router.waitForLog(outcome("failed"))
            expectFeedback(tag, ["FF 00 40 5D 04 01 01 02 00"], "failed")
            #expect(tag.lights.color == .red)
            try await harness.remove(tag, slot: 0)

            // The other reader has no readers: entry: it gets no command at all.
            let other = try harness.present(uri: "https://door.example/3", slot: 1)
            try await harness.waitForDispatch(containing: "door|Virtual PCD 00 01")
            try await harness.router.waitForLog(" info tap ", count: 3)
            #expect(!other.exchanges.contains { $0.isReaderCommand }, "\(other.exchanges)")
            try await harness.remove(other, slot: 1)
            #expect(harness.dispatched.count { $0.hasPrefix("door|") } == 2, "\(harness.dispatched)")
        }
    }

    @Test("a card that vanishes before the signal: the failure is logged once for the reader, the router goes on")
    func failureLoggedOnce() async throws {
        try await RouterHarness.with(rules: Self.rules()) { harness in
            // A whole tap first: how many commands the read takes.
            let first = try harness.present(uri: "https://door.example/0")
            try await harness.waitForDispatches(1)
            try await harness.router.waitForLog("feedback.outcome=accepted")
            let readCommands = first.exchanges.count { !$0.isReaderCommand }
            #expect(readCommands > 0)
            try await harness.remove(first, slot: 0)
            for round in 1...2 {
                // The card answers the whole read, then vanishes: the signal's command finds no card.
                let tag = try harness.present(uri: "https://door.example/\(round)", answeringAtMost: readCommands)
                try await harness.waitForDispatches(round + 1)
                try await harness.router.waitForLog("reader.feedback_failed", count: round)
                await tag.waitUntilGone()
                try await harness.router.waitForLog("pcsc.card.removed", count: round + 1)
                #expect(!tag.exchanges.contains { $0.isReaderCommand })
            }
            #expect(harness.router.lines(containing: "reader.feedback_failed: not retried").count == 1)
            #expect(harness.router.lines(containing: "reader.feedback_failed").count == 2)
            let tag = try harness.present(uri: "https://door.example/3")
            try await harness.waitForDispatches(4)
            try await harness.router.waitForLog("feedback.outcome=accepted", count: 4)
            expectFeedback(tag, ["FF 00 40 0E 04 01 00 01 01"], "after the failures")
            try await harness.remove(tag, slot: 0)
        }
    }

    static func card(_ uri: String) throws -> Type2Card {
        try Type2Card(model: .ntag213, message: try RouterHarness.uriMessage(uri), options: .init(model: .ntag213))
    }

    @Test("quiet mode on vpcd, which has no escape command: asked once, no escape command, one log line")
    func quietWithoutEscape() async throws {
        let rules = """
            version: 1
            readers:
              - name: "Virtual PCD 00 00"
                quiet: true
            rules:
            \(recordingRule(name: "door", match: "{ domains: [door.example] }", marker: "door"))
            """
        try await RouterHarness.with(rules: rules) { harness in
            try await harness.router.waitForLog("reader.escape_unavailable")
            let tag = try harness.present(uri: "https://door.example/1")
            try await harness.waitForDispatches(1)
            try await harness.router.waitForLog("feedback.outcome=accepted")
            try await harness.remove(tag, slot: 0)
            let lines = harness.router.lines(containing: "reader.escape_unavailable")
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.contains("Virtual PCD 00 00") == true)
            #expect(!(lines.first?.contains("ifdDriverOptions") ?? true), "vpcd is not libccid")
            #expect(harness.router.lines(containing: "reader.quiet").allSatisfy { !$0.contains(" info reader.quiet ") })
            // Nothing but the LED and buzzer command of the tap reached the reader.
            #expect(
                tag.exchanges.filter(\.isReaderCommand).map(\.command) == [Self.bytes("FF 00 40 0E 04 01 00 01 01")])
        }
    }
}
