import Logging
import NFCTag
import PCSC
import ReaderFeedback
import Synchronization
import TagRules
import TestSupport
import Testing

@testable import TagRouterCore

private let acr = "ACS ACR122U PICC Interface 00 00"
private let plain = "SCM Microsystems SCL3711 00 00"
private let unnamed = "Generic Contactless Reader 00 00"

private let rules = """
    version: 1
    defaults: { cooldown: 0 }
    readers:
      - name: "*ACR122*"
        feedback:
          ignored: { led: orange }
      - name: "Generic*"
    rules:
      - name: door
        match: { domains: [door.example] }
        run: ["/bin/true"]
      - name: log
        match: { domains: [fan.example] }
        continue: true
        run: ["/bin/true", "log"]
      - name: fan
        match: { domains: [fan.example] }
        run: ["/bin/true", "fan"]
      - name: desk
        match: { domains: [desk.example] }
        run: ["/bin/true"]
        feedback: { accepted: { led: green, beep: twice } }
    """

private func bytes(_ text: String) -> [UInt8] { text.split(separator: " ").map { UInt8($0, radix: 16)! } }

/// What the router shows on a reader for each outcome (docs/tags.md, "Reader feedback"), with scripted reads and
/// a recording connection: the signal after the first action started, over the tap's connection, the tap ended
/// once; the family asked once; a failure logged once.
@Suite struct RouterFeedbackTests {
    @Test("accepted, a rule's override, ignored and failed: each its commands, after the first action started")
    func outcomes() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let channel = embedded.cardReader.channel(acr)
        channel.mark.withLock { [performer = embedded.performer] in $0 = { performer.actions.count } }
        var tap = try #require(try embedded.present(acr, uri: "https://door.example/1", eventCount: 1))
        _ = await embedded.process(tap)
        #expect(channel.commands == [bytes("FF 00 40 0E 04 01 00 01 01")])
        #expect(channel.marks == [1], "the first action had started")
        tap = try #require(try embedded.present(acr, uri: "https://desk.example/1", eventCount: 2))
        _ = await embedded.process(tap)
        #expect(channel.commands.last == bytes("FF 00 40 0E 04 01 01 02 01"))
        tap = try #require(try embedded.present(acr, uri: "https://nobody.example/", eventCount: 3))
        _ = await embedded.process(tap)
        #expect(channel.commands.last == bytes("FF 00 40 0F 04 00 00 00 00"))
        embedded.cardReader.script(.failure(NFCTagError(.tagRemoved, "gone")), on: acr)
        tap = try #require(embedded.router.handle(.cardPresented(reader: acr, atr: [0x3B, 0x8F], eventCount: 4)))
        _ = await embedded.process(tap)
        #expect(channel.commands.last == bytes("FF 00 40 5D 04 01 01 02 00"))
        #expect(channel.commands.count == 4)
        #expect(embedded.cardReader.tapsEnded == [acr, acr, acr, acr])
        #expect(
            embedded.logs.with(message: "reader.feedback").map { $0.metadata["feedback.outcome"] } == [
                "accepted", "accepted", "ignored", "failed",
            ])
    }

    @Test("with several matched rules, every rule's first action has started before the signal")
    func fanOut() async throws {
        let embedded = try EmbeddedRouter(rules: rules, performer: RecordingPerformer(commandTime: .milliseconds(50)))
        let channel = embedded.cardReader.channel(acr)
        channel.mark.withLock { [performer = embedded.performer] in $0 = { performer.actions.count } }
        let tap = try #require(try embedded.present(acr, uri: "https://fan.example/1", eventCount: 1))
        _ = await embedded.process(tap)
        #expect(channel.commands == [bytes("FF 00 40 0E 04 01 00 01 01")])
        #expect(channel.marks == [2], "both rules' actions had started")
    }

    @Test("a reader no entry names gets nothing; its tap still ends")
    func unnamedReader() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let tap = try #require(try embedded.present(plain, uri: "https://door.example/1", eventCount: 1))
        _ = await embedded.process(tap)
        #expect(embedded.cardReader.channel(plain).commands.isEmpty)
        #expect(embedded.cardReader.tapsEnded == [plain])
    }

    @Test("the signal and the card's release do not wait for an action that runs on")
    func slowAction() async throws {
        let embedded = try EmbeddedRouter(rules: rules, performer: RecordingPerformer(hangs: true))
        let channel = embedded.cardReader.channel(acr)
        let tap = try #require(try embedded.present(acr, uri: "https://door.example/1", eventCount: 1))
        let running = Task { await embedded.process(tap) }
        try await embedded.wait(until: { !embedded.cardReader.tapsEnded.isEmpty })
        #expect(channel.commands == [bytes("FF 00 40 0E 04 01 00 01 01")])
        #expect(embedded.performer.actions.count == 1)
        // The card is released at once, not when the action ends.
        #expect(embedded.cardReader.tapsEnded == [acr])
        running.cancel()
        _ = await running.value
        #expect(embedded.cardReader.tapsEnded == [acr], "ended once")
    }

    @Test("a reader whose name says nothing is asked once (FF 00 48 00 00); one that answers no version gets nothing")
    func askedFamily() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let channel = embedded.cardReader.channel(unnamed)
        channel.answer.withLock {
            $0 = { command in
                command == ACR122UCommand.firmwareVersion.bytes
                    ? Array("ACR122U215".utf8) + [0x90, 0x00] : [0x90, 0x02]
            }
        }
        for count in 1...2 {
            let tap = try #require(
                try embedded.present(unnamed, uri: "https://door.example/\(count)", eventCount: UInt16(count)))
            _ = await embedded.process(tap)
        }
        #expect(
            channel.commands == [
                bytes("FF 00 48 00 00"), bytes("FF 00 40 0E 04 01 00 01 01"), bytes("FF 00 40 0E 04 01 00 01 01"),
            ])
        // Another appearance of a reader that answers something else: asked, then left alone, and said once.
        _ = embedded.router.handle(.readerRemoved(unnamed))
        channel.answer.withLock { $0 = { _ in [0x6A, 0x81] } }
        for count in 3...4 {
            let tap = try #require(
                try embedded.present(unnamed, uri: "https://door.example/\(count)", eventCount: UInt16(count)))
            _ = await embedded.process(tap)
        }
        #expect(channel.commands.suffix(1) == [bytes("FF 00 48 00 00")])
        #expect(channel.commands.count == 4)
        #expect(embedded.logs.all.count { $0.message.hasPrefix("reader.feedback_unsupported") } == 1)
    }

    @Test("a command that fails is logged once per reader, and not retried on the tap's path")
    func failureLoggedOnce() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let channel = embedded.cardReader.channel(acr)
        channel.answer.withLock { $0 = { _ in throw NFCTagError(.tagRemoved, "the card left") } }
        for count in 1...3 {
            let tap = try #require(
                try embedded.present(acr, uri: "https://door.example/\(count)", eventCount: UInt16(count)))
            _ = await embedded.process(tap)
        }
        #expect(channel.commands.count == 3, "one attempt per tap")
        let failures = embedded.logs.all.filter { $0.message.hasPrefix("reader.feedback_failed") }
        #expect(failures.map(\.level) == [.warning, .debug, .debug])
        #expect(embedded.performer.actions.count == 3, "the actions ran all the same")
    }
}
