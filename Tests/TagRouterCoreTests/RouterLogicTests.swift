import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Prometheus
import ServiceLifecycle
import ServiceLifecycleTestKit
import StateStore
import TagActions
import TagRules
import TestSupport
import Testing

@testable import TagRouterCore

private let door = "ACS ACR122U PICC Interface 00 00"
private let desk = "Virtual PCD 00 01"

private let rules = """
    version: 1
    rules:
      - name: door
        cooldown: 3s
        match:
          domains: [door.example]
        run: ["/bin/true", "{uri}"]
      - name: hook
        match:
          domains: [hook.example]
        webhook:
          url: http://127.0.0.1:9/hook
    """

/// The router's logic with scripted reader events and reads: no pcscd, no tags, no processes.
@Suite struct RouterLogicTests {
    @Test func aMatchedTapDispatchesOnceAndIsLoggedCountedAndRecorded() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        _ = embedded.router.handle(.readerAdded(door))
        let tap = try #require(try embedded.present(door, uri: "https://door.example/open", eventCount: 1))
        let outcome = await embedded.process(tap)
        guard case .dispatched(let tag, let dispatch) = outcome else {
            Issue.record("expected a dispatch, got \(outcome)")
            return
        }
        #expect(tag.uid == "04A1B2C3D4E580")
        #expect(dispatch.rules.map(\.rule) == ["door"])
        #expect(dispatch.outcomes == [ActionOutcome(kind: .run, result: .finished(.exited(0), timedOut: false))])
        let performed = try #require(embedded.performer.actions.first)
        guard case .run(let argv, _, _, _) = performed.action else {
            Issue.record("expected a run action, got \(performed.action)")
            return
        }
        #expect(argv == ["/bin/true", "https://door.example/open"])
        #expect(performed.rule == "door")
        #expect(performed.document.id == dispatch.eventID)
        let line = try #require(embedded.logs.with(message: "tap").first)
        #expect(line.level == .info)
        #expect(line.metadata["reader.name"] == door)
        #expect(line.metadata["rule.name"] == "door")
        #expect(line.metadata["ndef.uri"] == "https://door.example/open")
        #expect(line.metadata["tag.tech"] == "type2")
        #expect(line.metadata["action.outcome"] == "run ok (exit 0)")
        #expect(line.metadata["event.id"] == dispatch.eventID)
        #expect(embedded.history.taps.map(\.outcome) == [.matched])
        #expect(embedded.history.taps.first?.detail == "run ok (exit 0)")
        #expect(embedded.exposition.contains(#"tagrouter_actions_total{kind="run",outcome="ok"} 1"#))
        #expect(embedded.exposition.contains("tagrouter_matched_total 1"))
        #expect(embedded.exposition.contains("tagrouter_taps_total 1"))
        #expect(embedded.exposition.contains("tagrouter_readers_present 1"))
    }

    @Test func aTagRestingOnTheReaderIsReadOnce() throws {
        let embedded = try EmbeddedRouter(rules: rules)
        #expect(try embedded.present(door, uri: "https://door.example/open", eventCount: 1) != nil)
        for _ in 0..<5 {
            #expect(try embedded.present(door, uri: "https://door.example/open", eventCount: 1) == nil)
        }
        #expect(embedded.cardReader.reads.isEmpty)
    }

    @Test func aRetapWithinTheCooldownIsSuppressedAndAfterItDispatches() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let first = try #require(try embedded.present(door, uri: "https://door.example/open", eventCount: 1))
        #expect(await embedded.process(first).isDispatched)
        _ = embedded.router.handle(.cardRemoved(reader: door))
        embedded.advance(by: .seconds(1))
        let second = try #require(try embedded.present(door, uri: "https://door.example/open", eventCount: 2))
        guard case .suppressed(_, let rules, let since) = await embedded.process(second) else {
            Issue.record("a retap after 1 s of a 3 s cooldown must be suppressed")
            return
        }
        #expect(rules == ["door"])
        #expect(since == .seconds(1))
        _ = embedded.router.handle(.cardRemoved(reader: door))
        embedded.advance(by: .seconds(3))
        let third = try #require(try embedded.present(door, uri: "https://door.example/open", eventCount: 3))
        #expect(await embedded.process(third).isDispatched)
        #expect(embedded.performer.actions.count == 2)
        #expect(embedded.history.taps.map(\.outcome) == [.matched, .suppressed, .matched])
        #expect(embedded.logs.with(message: "tap.suppressed: in cooldown").first?.level == .debug)
        #expect(embedded.exposition.contains("tagrouter_suppressed_total 1"))
    }

    @Test func theCooldownIsPerReader() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let onDoor = try #require(try embedded.present(door, uri: "https://door.example/open", eventCount: 1))
        let onDesk = try #require(try embedded.present(desk, uri: "https://door.example/open", eventCount: 1))
        #expect(await embedded.process(onDoor).isDispatched)
        #expect(await embedded.process(onDesk).isDispatched)
    }

    @Test func aQuickSwapNeverSeenEmptyIsANewPresentation() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let first = try #require(try embedded.present(door, uri: "https://door.example/a", eventCount: 4))
        #expect(await embedded.process(first).isDispatched)
        // Another tag, put on so quickly that no removal was reported: only the event counter moved.
        let second = try #require(
            try embedded.present(door, uri: "https://door.example/b", uid: [0x04, 1, 2, 3, 4, 5, 6], eventCount: 6))
        #expect(second.serial != first.serial)
        #expect(await embedded.process(second).isDispatched)
        #expect(embedded.performer.actions.map(\.document.uri) == ["https://door.example/a", "https://door.example/b"])
    }

    @Test func aTagRemovedWhileItIsReadIsNotDispatchedWhenAnotherPresentationStarted() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let first = try #require(try embedded.present(door, uri: "https://door.example/a", eventCount: 1))
        _ = embedded.router.handle(.cardRemoved(reader: door))
        guard case .superseded(_, let rules) = await embedded.process(first) else {
            Issue.record("a read that ends after its presentation ended must not dispatch")
            return
        }
        #expect(rules == ["door"])
        #expect(embedded.performer.actions.isEmpty)
        #expect(embedded.history.taps.isEmpty)
    }

    @Test func aReaderRemovedEndsItsPresentationAndItsCount() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        _ = embedded.router.handle(.readerAdded(door))
        _ = embedded.router.handle(.readerAdded(desk))
        let tap = try #require(try embedded.present(door, uri: "https://door.example/a", eventCount: 1))
        _ = embedded.router.handle(.readerRemoved(door))
        #expect(await embedded.process(tap).isSuperseded)
        #expect(embedded.exposition.contains("tagrouter_readers_present 1"))
        #expect(embedded.logs.with(message: "reader.removed").first?.metadata["reader.name"] == door)
        _ = embedded.router.handle(.readerRemoved(desk))
        #expect(embedded.logs.with(message: "waiting for a reader…").count == 1)
        // Back again, with the same event counter it had: a new presentation all the same.
        _ = embedded.router.handle(.readerAdded(door))
        #expect(try embedded.present(door, uri: "https://door.example/a", eventCount: 1) != nil)
    }

    @Test func readersTheFilterRejectsAreNeverRead() throws {
        let embedded = try EmbeddedRouter(rules: rules, acceptsReader: { $0 == door })
        _ = embedded.router.handle(.readerAdded(desk))
        #expect(embedded.logs.with(message: "reader.skipped").count == 1)
        #expect(try embedded.present(desk, uri: "https://door.example/a", eventCount: 1) == nil)
        #expect(try embedded.present(door, uri: "https://door.example/a", eventCount: 1) != nil)
    }

    @Test func aTagNoRuleMatchesIsIgnoredAtDebug() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let tap = try #require(try embedded.present(door, uri: "https://elsewhere.example/", eventCount: 1))
        guard case .ignored(let tag) = await embedded.process(tap) else {
            Issue.record("expected ignored")
            return
        }
        #expect(tag.uri == "https://elsewhere.example/")
        #expect(embedded.logs.with(message: "tap.ignored: no rule matches").first?.level == .debug)
        #expect(embedded.history.taps.map(\.outcome) == [.ignored])
        #expect(embedded.exposition.contains("tagrouter_ignored_total 1"))
        // A tag that matched nothing starts no cooldown: the same tag matching later dispatches.
        #expect(embedded.performer.actions.isEmpty)
    }

    @Test(arguments: [
        (NFCTagError(.tagRemoved, "tag removed during read") as any Error, ReadFailure.Kind.tagRemoved),
        (NFCTagError(.malformedTLV, offset: 4, "bad TLV"), .malformed),
        (NFCTagError(.unexpectedStatus, "6A 82"), .protocol),
        (CocoaError(.fileReadUnknown), .other),
    ])
    func aFailedReadIsClassifiedOnce(error: any Error, kind: ReadFailure.Kind) async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        embedded.cardReader.script(.failure(error), on: door)
        let tap = try #require(embedded.router.handle(.cardPresented(reader: door, atr: [0x3B], eventCount: 1)))
        guard case .readFailed(let reader, let failure) = await embedded.process(tap) else {
            Issue.record("expected a read failure")
            return
        }
        #expect(reader == door)
        #expect(failure.kind == kind)
        let line = try #require(embedded.logs.with(message: "tap.read_failed").first)
        #expect(line.level == .warning)
        #expect(line.metadata["error.kind"] == kind.rawValue)
        #expect(line.metadata["error"] == "\(error)")
        #expect(embedded.history.taps.map(\.outcome) == [.failed])
        #expect(embedded.exposition.contains(#"tagrouter_read_errors_total{kind="\#(kind.rawValue)"} 1"#))
    }

    @Test func anInvalidMessageIsReportedWithTheTagAndNeverMatched() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        // A short record: header D1, type length 1, payload length 9, but only 3 payload bytes.
        let bytes: [UInt8] = [0xD1, 0x01, 0x09, 0x55, 0x04, 0x64, 0x6F]
        embedded.cardReader.script(
            .tag(TagReading(uid: [1, 2, 3, 4], technology: .type2, content: .message(bytes))), on: door)
        let tap = try #require(embedded.router.handle(.cardPresented(reader: door, atr: [0x3B], eventCount: 1)))
        guard case .invalidNDEF(let tag, let failure) = await embedded.process(tap) else {
            Issue.record("expected an invalid message")
            return
        }
        #expect(tag.uid == "01020304")
        #expect(failure.kind == .ndef)
        #expect(embedded.logs.with(message: "tap.invalid_ndef: the tag's NDEF message is invalid").count == 1)
        #expect(embedded.exposition.contains(#"tagrouter_read_errors_total{kind="ndef"} 1"#))
        #expect(embedded.performer.actions.isEmpty)
    }

    @Test func aRulesActionsRunInOrderAndRulesItContinuesToRunBesideIt() async throws {
        let performer = RecordingPerformer(commandTime: .milliseconds(100))
        let embedded = try EmbeddedRouter(
            rules: """
                version: 1
                rules:
                  - name: log
                    continue: true
                    match: { domains: [music.example] }
                    run: ["/bin/logger", "log"]
                  - name: music
                    match: { domains: [music.example] }
                    actions:
                      - run: ["/usr/bin/mpc", "clear"]
                      - run: ["/usr/bin/mpc", "add"]
                      - run: ["/usr/bin/mpc", "play"]
                """, performer: performer)
        let tap = try #require(try embedded.present(door, uri: "https://music.example/x", eventCount: 1))
        guard case .dispatched(_, let dispatch) = await embedded.process(tap) else {
            Issue.record("expected a dispatch")
            return
        }
        #expect(dispatch.rules.map(\.rule) == ["log", "music"])
        let music = performer.commandSteps.filter { $0 != "start log" && $0 != "end log" }
        #expect(music == ["start clear", "end clear", "start add", "end add", "start play", "end play"])
        // The other rule's command is not queued behind them: it starts before the first one ends.
        let steps = performer.commandSteps
        #expect(try #require(steps.firstIndex(of: "start log")) < #require(steps.firstIndex(of: "end clear")))
    }

    @Test func aWebhookIsQueuedAndItsDeliveryNamed() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        let tap = try #require(try embedded.present(door, uri: "https://hook.example/x", eventCount: 1))
        guard case .dispatched(_, let dispatch) = await embedded.process(tap) else {
            Issue.record("expected a dispatch")
            return
        }
        #expect(dispatch.outcomes.map(\.summary) == ["webhook queued (delivery 1)"])
        #expect(embedded.exposition.contains(#"tagrouter_actions_total{kind="webhook",outcome="queued"} 1"#))
    }

    @Test func aDryRunLogsWhatWouldBeDoneAndPerformsNothing() async throws {
        let embedded = try EmbeddedRouter(rules: rules, dryRun: true)
        let tap = try #require(try embedded.present(door, uri: "https://door.example/open", eventCount: 1))
        guard case .dispatched(_, let dispatch) = await embedded.process(tap) else {
            Issue.record("expected a dispatch")
            return
        }
        #expect(dispatch.outcomes.map(\.summary) == ["run dry-run"])
        #expect(embedded.performer.actions.isEmpty)
        #expect(embedded.logs.all.contains { $0.message.hasPrefix("dry-run: would run") })
        #expect(embedded.exposition.contains(#"tagrouter_actions_total{kind="run",outcome="dry-run"} 1"#))
    }

    @Test func aReloadTakesNewRulesAndABrokenOneKeepsTheOld() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        try rules.replacingOccurrences(of: "name: door", with: "name: front-door").write(
            toFile: embedded.rulesFile, atomically: true, encoding: .utf8)
        #expect(embedded.rules.reload())
        let first = try #require(try embedded.present(door, uri: "https://door.example/a", eventCount: 1))
        guard case .dispatched(_, let dispatch) = await embedded.process(first) else {
            Issue.record("expected a dispatch")
            return
        }
        #expect(dispatch.rules.map(\.rule) == ["front-door"])
        try "version: 1\nrules: [".write(toFile: embedded.rulesFile, atomically: true, encoding: .utf8)
        #expect(!embedded.rules.reload())
        #expect(embedded.logs.with(message: "rules.reload_failed: the previous rules stay in force").count == 1)
        _ = embedded.router.handle(.cardRemoved(reader: door))
        let second = try #require(try embedded.present(desk, uri: "https://door.example/a", eventCount: 1))
        guard case .dispatched(_, let again) = await embedded.process(second) else {
            Issue.record("the previous rules must stay in force")
            return
        }
        #expect(again.rules.map(\.rule) == ["front-door"])
    }

    @Test func laterEventsRunTheRulesInForce() async throws {
        let shelf = """
            version: 1
            rules:
              - name: shelf
                match: { domains: [shelf.example] }
                run: ["/bin/true", "tap"]
                on:
                  removed: { run: ["/bin/true", "removed-v1"] }
            """
        let embedded = try EmbeddedRouter(rules: shelf)
        let tapped = embedded.rules.ruleSet.rules[0]
        let event = Presentations.LaterEvent(
            context: PresentationContext(kind: .removed, presentationID: "p1", presentedFor: .seconds(2)),
            tag: ReadTag(
                tag: TagSummary(reader: door, uid: "04A1B2C3D4E580", tech: "type2", uri: "https://shelf.example/1"),
                event: TagEvent(
                    uid: "04A1B2C3D4E580", reader: door, tech: "type2", uri: "https://shelf.example/1"),
                message: NDEFMessage(records: []), identity: .uid([0x04, 0xA1]), matches: [], readTime: .zero),
            rules: [tapped])
        func argvs() -> [[String]] {
            embedded.performer.actions.compactMap { if case .run(let argv, _, _, _) = $0.action { argv } else { nil } }
        }
        // Changed by a reload between the tap and the removal: the removal runs the new version.
        try shelf.replacingOccurrences(of: "removed-v1", with: "removed-v2").write(
            toFile: embedded.rulesFile, atomically: true, encoding: .utf8)
        #expect(embedded.rules.reload())
        await embedded.router.carryOut(event)
        #expect(argvs() == [["/bin/true", "removed-v2"]])
        // The rule keeps no removed event, or is gone: nothing runs.
        try shelf.replacingOccurrences(of: "removed: { run:", with: "held: { for: 1h, run:").write(
            toFile: embedded.rulesFile, atomically: true, encoding: .utf8)
        #expect(embedded.rules.reload())
        await embedded.router.carryOut(event)
        try shelf.replacingOccurrences(of: "name: shelf", with: "name: other").write(
            toFile: embedded.rulesFile, atomically: true, encoding: .utf8)
        #expect(embedded.rules.reload())
        await embedded.router.carryOut(event)
        #expect(argvs() == [["/bin/true", "removed-v2"]])
    }

    @Test func theRunningRouterResetsItsReaderWhenPcscdIsLostAndStopsOnShutdown() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await embedded.router.run() }
                embedded.send(.readerAdded(door))
                let message = try NDEFMessage(records: [URIRecord(uri: "https://door.example/a").record]).encoded()
                embedded.cardReader.script(
                    .tag(TagReading(uid: [4, 1, 2, 3, 4, 5, 6], technology: .type2, content: .message(message))),
                    on: door)
                // The same event counter twice: the tag rests on the reader, one read.
                embedded.send(.cardPresented(reader: door, atr: [0x3B], eventCount: 1))
                embedded.send(.cardPresented(reader: door, atr: [0x3B], eventCount: 1))
                try await embedded.wait { embedded.history.taps.count == 1 }
                embedded.send(.serviceLost(PCSCError(call: "SCardEstablishContext", code: 0x8010_001D)))
                try await embedded.wait { embedded.cardReader.resets == 1 }
                trigger.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(embedded.cardReader.reads == [door])
        #expect(embedded.cardReader.resets == 2)
        #expect(embedded.logs.with(message: "router.stopping").count == 1)
    }

    @Test func tapsInProgressFinishAtGracefulShutdown() async throws {
        let embedded = try EmbeddedRouter(rules: rules)
        embedded.cardReader.hold(door)
        try await testGracefulShutdown { trigger in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await embedded.router.run() }
                let message = try NDEFMessage(records: [URIRecord(uri: "https://door.example/a").record]).encoded()
                embedded.cardReader.script(
                    .tag(TagReading(uid: [4, 1, 2, 3, 4, 5, 6], technology: .type2, content: .message(message))),
                    on: door)
                embedded.send(.cardPresented(reader: door, atr: [0x3B], eventCount: 1))
                try await embedded.wait { embedded.cardReader.isHolding(door) }
                trigger.triggerGracefulShutdown()
                embedded.cardReader.release(door)
                try await group.waitForAll()
            }
        }
        #expect(embedded.performer.actions.count == 1)
        #expect(embedded.history.taps.map(\.outcome) == [.matched])
    }

    @Test func theGroupsBudgetCancelsActionsThatOutliveIt() async throws {
        let embedded = try EmbeddedRouter(rules: rules, performer: RecordingPerformer(hangs: true))
        // The router's companions, still running when the budget runs out, are cancelled too: that must end the
        // group cleanly (exit status 0), not as a failure.
        let quiet = Logger(label: "quiet") { _ in SwiftLogNoOpLogHandler() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("budget-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let outbox = try StateDatabase(directory: state, logger: quiet)
        let registry = PrometheusCollectorRegistry()
        let services: [any Service] = [
            OutboxWorker(database: outbox, configuration: .init(userAgent: "test"), logger: quiet),
            OutboxGauge(
                outbox: outbox, metrics: RouterMetrics(factory: PrometheusMetricsFactory(registry: registry)),
                logger: quiet),
            RulesReloader(store: embedded.rules, logger: quiet),
            MetricsServer(host: "127.0.0.1", port: 0, registry: registry, logger: quiet),
            embedded.router,
        ]
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            logger: quiet)
        configuration.maximumGracefulShutdownDuration = .milliseconds(200)
        let group = ServiceGroup(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let message = try NDEFMessage(records: [URIRecord(uri: "https://door.example/a").record]).encoded()
            embedded.cardReader.script(
                .tag(TagReading(uid: [4, 1, 2, 3, 4, 5, 6], technology: .type2, content: .message(message))), on: desk)
            embedded.send(.cardPresented(reader: desk, atr: [0x3B], eventCount: 1))
            try await embedded.wait { embedded.performer.actions.count == 1 }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let tap = try #require(embedded.history.taps.first)
        #expect(tap.outcome == .failed)
        #expect(tap.detail == "run failed (cancelled)")
    }
}

extension TapOutcome {
    var isDispatched: Bool {
        if case .dispatched = self { return true }
        return false
    }

    var isSuperseded: Bool {
        if case .superseded = self { return true }
        return false
    }
}
