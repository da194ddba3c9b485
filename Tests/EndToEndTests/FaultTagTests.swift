import Foundation
import NDEF
import TestSupport
import Testing
import VirtualTag

/// Fault suite (issue 7): tags ripped away mid-read and tags written by an attacker, on virtual readers.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct FaultTagTests {
    /// Every tag matches: anything that reached the dispatcher would show.
    /// Every tap is recorded, and every `removed` in OUT.removed (issue 30): a tag ripped away mid-read never
    /// dispatched, so it never fires one either.
    static let catchAll =
        "version: 1\nrules:\n"
        + recordingRule(name: "all", match: "{ any: true }", marker: "all", extra: recordingRemovals)

    enum Kind: String, CaseIterable, Sendable {
        case type2, type4, type5, felica
    }

    static func card(_ kind: Kind, message: [UInt8], uid: [UInt8]) throws -> any VirtualCard {
        switch kind {
        case .type2:
            var options = Type2Card.Options(model: .ntag216)
            options.uid = uid
            return try Type2Card(model: .ntag216, message: message, options: options)
        case .type4:
            var options = Type4Card.Options()
            options.uid = uid
            return try Type4Card(message: message, options: options)
        case .type5:
            var options = Type5Card.Options()
            options.uid = [0xE0, 0x04] + uid.prefix(6)
            return try Type5Card(message: message, options: options)
        case .felica:
            var options = FeliCaCard.Options()
            options.idm = [0x01, 0x27] + uid.prefix(6)
            return try FeliCaCard(message: message, options: options)
        }
    }

    /// A full read tells how many commands the tag answers (n). Then for every k in 0..<n a tag answers k
    /// commands and vanishes at the next: the router must report a failed read each time and dispatch nothing,
    /// not even a decoded fragment. A full tap afterwards dispatches exactly once.
    @Test(arguments: Kind.allCases)
    func aTagRemovedAtEveryCommandIndexDispatchesNothingAndAFullTapOnce(kind: Kind) async throws {
        try await RouterHarness.with(rules: Self.catchAll) { harness in
            let message = try RouterHarness.uriMessage("https://example.com/" + String(repeating: "long/", count: 18))
            let full = try harness.present(try Self.card(kind, message: message, uid: faultUID(10, 0)))
            try await harness.waitForDispatches(1)
            await full.remove()
            let commands = full.commandCount
            try #require(commands >= 3, "a full \(kind) read took \(commands) commands")
            print(
                "fault suite: a full \(kind) read answers \(commands) commands; vanishing after each of 0..<\(commands)"
            )
            try await harness.router.waitForLog("pcsc.card.removed", count: 1)

            for limit in 0..<commands {
                let ripped = try harness.present(
                    try Self.card(kind, message: message, uid: faultUID(11, limit)), answeringAtMost: limit)
                await ripped.waitUntilGone()
                try await harness.router.waitForLog("tap.read_failed", count: limit + 1)
                try await harness.router.waitForLog("pcsc.card.removed", count: limit + 2)
                #expect(ripped.commandCount == limit)
                #expect(harness.dispatched.count == 1, "after vanishing at command \(limit + 1) of \(commands)")
            }
            #expect(harness.router.lines(containing: "tap.invalid_ndef").isEmpty)

            let again = try harness.present(try Self.card(kind, message: message, uid: faultUID(12, 0)))
            try await harness.waitForDispatches(2)
            try await harness.remove(again, slot: 0)
            #expect(harness.dispatched.count == 2)
            #expect(harness.router.lines(containing: "tap.read_failed").count == commands)
            // The two full taps were removed once each; none of the ripped reads fired a removal.
            let removed = try await harness.settledRemovals(expecting: 2)
            #expect(removed.count == 2, "\(removed)")
        }
    }

    /// Every malformed message of the NDEF test table, on a Type 2 tag (even rows) or a Type 4 tag (odd rows):
    /// no dispatch, exactly one warning per tag naming the reader and the decoder's sentence (with its byte
    /// offset), and the router keeps serving.
    @Test func hostileNDEFMessagesDispatchNothingAndLogOneLineEach() async throws {
        try await RouterHarness.with(rules: Self.catchAll) { harness in
            for (index, vector) in malformedNDEFVectors.enumerated() {
                let kind: Kind = index.isMultiple(of: 2) ? .type2 : .type4
                let slot = index % 2
                let tag = try harness.present(
                    try Self.card(kind, message: Hex.bytes(vector.hex), uid: faultUID(20, index)), slot: slot)
                try await harness.router.waitForLog("tap.invalid_ndef", count: index + 1)
                try await harness.remove(tag, slot: slot)
                let line = try #require(harness.router.lines(containing: "tap.invalid_ndef").last)
                #expect(line.contains(vector.error), "row \(index) (\(vector.hex)) logged: \(line)")
                #expect(line.contains("Virtual PCD 00 0\(slot)"), "row \(index): \(line)")
            }
            // Every tag's removal was handled (harness.remove waits for it): nothing of theirs can dispatch now.
            #expect(harness.dispatched.isEmpty)
            #expect(harness.router.lines(containing: "tap.invalid_ndef").count == malformedNDEFVectors.count)
            #expect(harness.router.lines(containing: "tap.read_failed").isEmpty)
            #expect(harness.router.isRunning)

            let good = try harness.present(uri: "https://example.com/after-the-attack")
            try await harness.waitForDispatches(1)
            await good.remove()
        }
    }
}
