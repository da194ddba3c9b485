import Foundation
import Logging
import PCSC
import StateStore
import TagActions
import TagRules
import TestSupport
import Testing

@testable import TagRouterCore

/// Lockout (docs/doors.md, "Lockout"): the state machine on its own, then the whole router with scripted taps and
/// a clock that moves when the test says.
@Suite struct LockoutTests {
    static let door = "Door reader 00 00"
    static let desk = "Desk reader 01 00"
    static let good: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
    static let rules = """
        version: 1
        rules:
          - name: front-door
            match: { uid: ["04A1B2C3D4E580"] }
            cooldown: 0
            lockout: { after: 3, within: 1m, for: 5m }
            run: ["/usr/local/bin/open-door", "{uid}"]
            denied:
              run: ["/usr/local/bin/alarm", "{denied.reason}", "{uid}"]
        """

    // MARK: The state machine

    @Test func refusalsWithinTheWindowLockTheReaderUntilTheLockoutEnds() {
        var lockouts = Lockouts()
        let policy = Lockout(after: 3, within: .seconds(60), duration: .seconds(300))
        let start = ContinuousClock.now
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start) == nil)
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(30)) == nil)
        let lock = lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(59))
        #expect(lock == Lockouts.Lock(rule: "r", until: start + .seconds(359)))
        #expect(lockouts.lock(of: "A", now: start + .seconds(358)) == lock)
        #expect(lockouts.lock(of: "B", now: start + .seconds(60)) == nil)
        // Refusals during a lockout are not counted: it ends on time, and the count starts afresh.
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(100)) == nil)
        #expect(lockouts.lock(of: "A", now: start + .seconds(359)) == nil)
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(360)) == nil)
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(361)) == nil)
        #expect(lockouts.lock(of: "A", now: start + .seconds(362)) == nil)
    }

    @Test func refusalsOlderThanTheWindowDoNotCount() {
        var lockouts = Lockouts()
        let policy = Lockout(after: 2, within: .seconds(10), duration: .seconds(60))
        let start = ContinuousClock.now
        for second in stride(from: 0, through: 100, by: 10) {
            #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(second)) == nil)
        }
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start + .seconds(109)) != nil)
    }

    @Test func aRuleWithoutLockoutNeverLocksAndAReloadLiftsLocksOfRulesGone() {
        var lockouts = Lockouts()
        let start = ContinuousClock.now
        for second in 0..<100 {
            #expect(lockouts.refused(reader: "A", rule: "r", lockout: nil, now: start + .seconds(second)) == nil)
        }
        let policy = Lockout(after: 1, within: .seconds(10), duration: .seconds(60))
        #expect(lockouts.refused(reader: "A", rule: "r", lockout: policy, now: start) != nil)
        lockouts.keep(["other": policy])
        #expect(lockouts.lock(of: "A", now: start) == nil)
    }

    // MARK: The router

    /// Presents `uid` on `reader` as a new presentation and processes the tap.
    static func tap(
        _ embedded: EmbeddedRouter, _ reader: String, uid: [UInt8], count: inout UInt16
    ) async throws -> TapOutcome {
        _ = embedded.router.handle(.cardRemoved(reader: reader))
        count += 1
        let tap = try #require(
            try embedded.present(reader, uri: "https://tag.example/x", uid: uid, eventCount: count))
        return await embedded.process(tap)
    }

    static func reason(_ outcome: TapOutcome) -> DenialReason? {
        if case .denied(_, _, let reason, _) = outcome { return reason }
        return nil
    }

    static func argv(_ performed: RecordingPerformer.Performed) -> [String] {
        if case .run(let argv, _, _, _) = performed.action { return argv }
        return []
    }

    @Test func threeRefusalsLockTheReaderForEveryTagUntilTheLockoutEnds() async throws {
        let embedded = try EmbeddedRouter(rules: Self.rules)
        var count: UInt16 = 0
        for index in 0..<3 {
            if index == 2 { #expect(embedded.router.lockedReaders().isEmpty) }
            let changes = embedded.statusChanges.value
            let generated: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, UInt8(index)]
            let outcome = try await Self.tap(embedded, Self.door, uid: generated, count: &count)
            #expect(Self.reason(outcome) == .unknownTag)
            // The status document is published again when the reader is locked, not before.
            #expect(embedded.statusChanges.value == changes + (index == 2 ? 1 : 0))
            embedded.advance(by: .seconds(10))
        }
        // The status document's lockouts: the door, by front-door, for 5 minutes from the third refusal.
        let lockouts = embedded.router.lockedReaders()
        #expect(lockouts.map(\.reader) == [Self.door] && lockouts.map(\.rule) == ["front-door"])
        #expect(lockouts.first.map { $0.until > Timestamp.rfc3339(Date().addingTimeInterval(280)) } == true)
        let locked = try #require(
            embedded.logs.with(message: "reader.locked_out: the reader refuses every tag for the lockout's time").first)
        #expect(locked.level == .warning)
        #expect(locked.metadata["reader.name"] == Self.door)
        #expect(locked.metadata["rule.name"] == "front-door")
        #expect(locked.metadata["lockout.for"] == "5m")
        #expect(embedded.exposition.contains(#"tagrouter_lockouts_total{rule="front-door"} 1"#))

        // The enrolled tag is refused too, as locked-out, and only the denied actions run.
        let refused = try await Self.tap(embedded, Self.door, uid: Self.good, count: &count)
        #expect(Self.reason(refused) == .lockedOut)
        #expect(
            Self.argv(try #require(embedded.performer.actions.last)) == [
                "/usr/local/bin/alarm", "locked-out", "04A1B2C3D4E580",
            ])
        #expect(!embedded.performer.actions.contains { Self.argv($0).first == "/usr/local/bin/open-door" })
        #expect(embedded.history.taps.last?.reason == "locked-out")
        #expect(embedded.exposition.contains(#"tagrouter_denied_total{reason="locked-out"} 1"#))
        // Another reader is not locked.
        var deskCount: UInt16 = 0
        #expect(try await Self.tap(embedded, Self.desk, uid: Self.good, count: &deskCount).isDispatched)

        // 5 minutes after the third refusal (at 20 s), the door opens again.
        embedded.advance(by: .seconds(289))
        #expect(Self.reason(try await Self.tap(embedded, Self.door, uid: Self.good, count: &count)) == .lockedOut)
        embedded.advance(by: .seconds(1))
        #expect(try await Self.tap(embedded, Self.door, uid: Self.good, count: &count).isDispatched)
        #expect(embedded.exposition.contains(#"tagrouter_lockouts_total{rule="front-door"} 1"#))
    }

    @Test func refusalsSpreadWiderThanTheWindowNeverLock() async throws {
        let embedded = try EmbeddedRouter(rules: Self.rules)
        var count: UInt16 = 0
        for index in 0..<10 {
            let generated: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, UInt8(index)]
            #expect(Self.reason(try await Self.tap(embedded, Self.door, uid: generated, count: &count)) == .unknownTag)
            embedded.advance(by: .seconds(31))
        }
        #expect(
            embedded.logs.with(message: "reader.locked_out: the reader refuses every tag for the lockout's time")
                .isEmpty)
        #expect(try await Self.tap(embedded, Self.door, uid: Self.good, count: &count).isDispatched)
    }
}
