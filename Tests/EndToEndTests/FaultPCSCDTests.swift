import Foundation
import TestSupport
import Testing
import VirtualTag

/// A 7-byte NXP-style UID of its own for each (series, number): tags of a fault case never share a cooldown.
func faultUID(_ series: Int, _ number: Int) -> [UInt8] {
    [0x04, 0xFA, UInt8(series & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number & 0xFF), 0x5A, 0x80]
}

/// Fault suite (issue 7): pcscd dying and readers going away under a running router.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct FaultPCSCDTests {
    /// Every tap is recorded, and so is every `removed` (in OUT.removed): each tag taken away, or lost with
    /// pcscd and not put back, is removed exactly once, and a pcscd crash fires no spurious removal (issue 30).
    static let rules =
        "version: 1\nrules:\n"
        + recordingRule(
            name: "door", match: "{ domains: [example.com] }", marker: "door", extra: recordingRemovals)

    /// Checks that every dispatched URI was removed exactly once.
    static func expectEachRemovedOnce(_ harness: RouterHarness, dispatched: [String]) async throws {
        let uris = dispatched.map { String($0.split(separator: "|").last ?? "") }
        let removed = try await harness.settledRemovals(expecting: uris.count)
        #expect(removed.sorted() == uris.sorted(), "removed: \(removed)")
    }

    /// Each cycle: a tag rests on slot 1 (and has dispatched) when pcscd is killed with SIGKILL; pcscd comes back
    /// and a tag is put on slot 0 at once, before the router has reconnected. That tag must dispatch once the
    /// router is back, and nothing may dispatch twice.
    @Test func pcscdKilledTwentyTimesWhileTagsAreTappedLosesNoTapAfterRecovery() async throws {
        try await RouterHarness.with(rules: Self.rules) { harness in
            var expected: [String] = []
            for cycle in 1...20 {
                let restingURI = "https://example.com/resting/\(cycle)"
                let resting = try harness.present(uri: restingURI, slot: 1, uid: faultUID(1, cycle))
                try await harness.waitForDispatch(containing: restingURI)
                expected.append("door|Virtual PCD 00 01|\(restingURI)")

                try await harness.pcscd.restart(killing: true)
                await resting.waitUntilGone()
                let earlyURI = "https://example.com/after-crash/\(cycle)"
                let early = try harness.present(uri: earlyURI, slot: 0, uid: faultUID(2, cycle))
                try await harness.router.waitForLog("pcscd is back", count: cycle, timeout: .seconds(20))
                try await harness.waitForDispatch(containing: earlyURI, timeout: .seconds(20))
                expected.append("door|Virtual PCD 00 00|\(earlyURI)")
                await early.remove()
                #expect(harness.router.isRunning, "cycle \(cycle)")
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(harness.dispatched == expected)
            try await Self.expectEachRemovedOnce(harness, dispatched: expected)
            #expect(harness.router.lines(containing: "pcscd is back").count == 20)
            #expect(harness.router.lines(containing: RouterHarness.readerAdded).count == 42)
        }
    }

    /// Debian's pcscd (built with libudev) never re-reads its serial reader configuration while it runs, and vpcd's
    /// readers exist for as long as pcscd does, so a reader cannot vanish from a running pcscd here. Each cycle
    /// restarts pcscd without the vpcd readers (the state of a machine whose reader is unplugged: pcscd up, no
    /// reader) and then with them again. A tag rests on a reader when it goes.
    @Test func readersRemovedAndReaddedTwentyTimesComeBackAndServeTaps() async throws {
        try await RouterHarness.with(rules: Self.rules) { harness in
            var expected: [String] = []
            for cycle in 1...20 {
                let resting = try harness.present(
                    uri: "https://example.com/resting/\(cycle)", slot: 0, uid: faultUID(3, cycle))
                try await harness.waitForDispatch(containing: "/resting/\(cycle)")
                expected.append("door|Virtual PCD 00 00|https://example.com/resting/\(cycle)")

                try await harness.pcscd.restart(readers: false)
                await resting.waitUntilGone()
                try await harness.router.waitForLog(" info reader.removed ", count: 2 * cycle, timeout: .seconds(20))
                try await harness.router.waitForLog("waiting for a reader", count: cycle, timeout: .seconds(20))
                try await harness.router.waitForLog("pcscd is back", count: 2 * cycle - 1, timeout: .seconds(20))
                #expect(harness.router.lines(containing: RouterHarness.readerAdded).count == 2 * cycle)

                try await harness.pcscd.restart(readers: true)
                try await harness.router.waitForLog(
                    RouterHarness.readerAdded, count: 2 * cycle + 2, timeout: .seconds(20))
                for slot in 0...1 {
                    let uri = "https://example.com/back/\(cycle)/\(slot)"
                    let tag = try harness.present(uri: uri, slot: slot, uid: faultUID(4 + slot, cycle))
                    try await harness.waitForDispatch(containing: uri)
                    expected.append("door|Virtual PCD 00 0\(slot)|\(uri)")
                    try await harness.remove(tag, slot: slot)
                }
                #expect(harness.router.isRunning, "cycle \(cycle)")
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(harness.dispatched == expected)
            try await Self.expectEachRemovedOnce(harness, dispatched: expected)
            #expect(harness.router.lines(containing: " info reader.removed ").count == 40)
        }
    }
}
