import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Synchronization
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// Fault suite (issue 13): a tag ripped away at every command of `tagrouter write`, on virtual readers (Type 2,
/// Type 4, Type 5 and FeliCa here; MIFARE Classic in ClassicWriteFaultTests). After
/// each rip the tag, as the write left it, is presented again and read through pcscd: it must hold its old
/// message, an empty one or the new one, never a broken one.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct FaultWriteTests {
    let logger = Logger(label: "test")

    /// One write to rip: the tag before, and the new message.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var old: [UInt8]
        var new: [UInt8]
        var makeCard: @Sendable ([UInt8]) throws -> any VirtualCard
        var testDescription: String { name }
    }

    static func uri(_ path: String, repeating count: Int) -> [UInt8] {
        let uri = "https://example.com/" + String(repeating: path, count: count)
        return (try? NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()) ?? []
    }

    static let cases: [Case] = [
        Case(name: "NTAG213, short to long", old: uri("a/", repeating: 10), new: uri("long/", repeating: 18)) {
            try Type2Card(model: .ntag213, message: $0)
        },
        Case(
            name: "NTAG216, one-byte length to three-byte", old: uri("x/", repeating: 60),
            new: uri("y/", repeating: 140)
        ) {
            try Type2Card(model: .ntag216, message: $0)
        },
        Case(name: "Type 4 with MLc 32, long to short", old: uri("old/", repeating: 30), new: uri("n/", repeating: 5)) {
            var options = Type4Card.Options()
            options.maxCommandLength = 32
            return try Type4Card(message: $0, options: options)
        },
        Case(name: "ICODE SLIX2 (Type 5), short to long", old: uri("a/", repeating: 10), new: uri("t5/", repeating: 25))
        {
            try Type5Card(message: $0)
        },
        Case(
            name: "FeliCa Lite-S (Type 3), long to short", old: uri("old/", repeating: 20), new: uri("n/", repeating: 5)
        ) {
            try FeliCaCard(message: $0)
        },
    ]

    /// A full write tells how many commands it takes (n) and which: replayed on a fresh card in this process, they
    /// give what the tag holds after each k in 0...n, every one of which must be old, empty or new (the whole sweep,
    /// in process). Then through pcscd, for the k where that changes (first, last, and on both sides of every
    /// change of old → empty → new), the tag answers k commands and vanishes at the next: the write fails with
    /// one sentence, and read back through pcscd the tag holds exactly what the replay said.
    @Test(arguments: cases)
    func aTagRippedAwayAtEveryCommandOfAWriteHoldsOldEmptyOrNew(_ faultCase: Case) async throws {
        try await withPCSCD { pcscd in
            let hex = faultCase.new.map { String(format: "%02X", $0) }.joined()
            let reader = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let timeline = CardTimeline()
            let full = try reader.present(try faultCase.makeCard(faultCase.old), timeline: timeline)
            try await waitUntilReaderHasACard(pcscd, slot: 0)
            let written = try await TagRouterBinary.run(
                ["write", "--ndef", hex, "--reader", "*00"], environment: pcscd.environment)
            #expect(written.status == 0, "\(written.standardError)")
            await full.remove()
            let commands = full.commandCount
            try #require(commands >= 5, "a full write took \(commands) commands")
            try await waitUntilReaderIsEmpty(pcscd, slot: 0)
            #expect(try await readBack(full.card, pcscd: pcscd) == .message(faultCase.new))

            let states = try await Self.statesAfterEachCommand(of: faultCase, timeline: timeline)
            try #require(states.count == commands + 1, "the replay saw \(states.count - 1) commands, not \(commands)")
            let expected: [TagReading.Content] = [.message(faultCase.old), .empty, .message(faultCase.new)]
            for (k, state) in states.enumerated() {
                #expect(expected.contains(state), "\(faultCase.name): after \(k) of \(commands) commands: \(state)")
            }
            #expect(states.first == .message(faultCase.old) && states.last == .message(faultCase.new))
            let changes = (1..<states.count).filter { states[$0] != states[$0 - 1] }
            let sampled = Set([0, commands - 1] + changes.flatMap { [$0 - 1, $0] }).filter { $0 < commands }.sorted()
            print(
                "fault suite: \(faultCase.name): a full write answers \(commands) commands; the tag changes after "
                    + "\(changes.map(String.init).joined(separator: ", ")); vanishing at \(sampled.count) of them")

            for limit in sampled {
                let ripped = try reader.present(try faultCase.makeCard(faultCase.old), answeringAtMost: limit)
                try await waitUntilReaderHasACard(pcscd, slot: 0)
                let output = try await TagRouterBinary.run(
                    ["write", "--ndef", hex, "--reader", "*00"], environment: pcscd.environment)
                await ripped.waitUntilGone()
                #expect(output.status == 1, "vanishing at command \(limit + 1) of \(commands): \(output.standardError)")
                #expect(
                    output.standardError.contains("tag removed during")
                        && output.standardError.hasSuffix(
                            "the tag holds its old message, an empty one or the new one: present it again and repeat the write\n"
                        ),
                    "\(output.standardError)")
                #expect(ripped.commandCount == limit)
                try await waitUntilReaderIsEmpty(pcscd, slot: 0)

                let content = try await readBack(ripped.card, pcscd: pcscd)
                #expect(
                    content == states[limit],
                    "\(faultCase.name): vanishing at command \(limit + 1) of \(commands) left \(content), not \(states[limit])"
                )
            }
        }
    }

    /// What the tag holds after each number of the full write's commands, 0 to all of them: the commands the card
    /// saw (`timeline`) replayed on a fresh card, power-ups included, each state read in this process with
    /// `TagReader` as `tagrouter read` reads it. A write ripped after k commands leaves the tag so, since the
    /// first k answers, and so the first k commands, are those of the full write.
    static func statesAfterEachCommand(of faultCase: Case, timeline: CardTimeline) async throws
        -> [TagReading.Content]
    {
        var card = try faultCase.makeCard(faultCase.old)
        var states = [try await InProcessChannel.read(card)]
        for entry in timeline.entries {
            switch entry.event {
            case .powered:
                card.powerCycled()
            case .command:
                _ = card.respond(to: entry.apdu)
                states.append(try await InProcessChannel.read(card))
            default:
                break
            }
        }
        return states
    }

    /// Presents `card` on slot 1 and reads it through pcscd with `TagReader`, as `tagrouter read` does.
    func readBack(_ card: any VirtualCard, pcscd: PrivatePCSCD) async throws -> TagReading.Content {
        let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
        let name = pcscd.readerName(slot: 1)
        try await waitUntilReaderHasACard(pcscd, slot: 1)
        let reading = try await PCSCContext.withContext(logger: logger) { context in
            try await context.withThread {
                let connection = try await context.connect(to: name)
                let reading = try await TagReader().read(atr: card.atr, channel: connection)
                await connection.disconnect()
                return reading
            }
        }
        await presented.remove()
        try await waitUntilReaderIsEmpty(pcscd, slot: 1)
        return reading.content
    }
}

/// A virtual card driven directly, without vpcd: reads what a card holds in this process.
final class InProcessChannel: CardChannel {
    private let card: Mutex<any VirtualCard>

    init(_ card: any VirtualCard) {
        self.card = Mutex(card)
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        card.withLock { $0.respond(to: command) }
    }

    /// What `card` holds, read as a reader that has just powered it up would read it.
    static func read(_ card: any VirtualCard) async throws -> TagReading.Content {
        var copy = card
        copy.powerCycled()
        return try await TagReader().read(atr: copy.atr, channel: InProcessChannel(copy)).content
    }
}
