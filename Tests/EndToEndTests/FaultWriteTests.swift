import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Testing
import VirtualTag

import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// Fault suite (issue 13): a tag ripped away at every command of `tagrouter write`, on virtual readers (Type 2,
/// Type 4, Type 5 and FeliCa here; MIFARE Classic in ClassicWriteFaultTests). After
/// each rip the tag, as the write left it, is presented again and read through pcscd: it must hold its old
/// message, an empty one or the new one, never a broken one.
@Suite(.serialized, .timeLimit(.minutes(45))) struct FaultWriteTests {
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

    /// A full write tells how many commands it takes (n). Then for every k in 0..<n the tag answers k commands
    /// and vanishes at the next: the write fails with one sentence, and the tag holds old, empty or new.
    @Test(arguments: cases)
    func aTagRippedAwayAtEveryCommandOfAWriteHoldsOldEmptyOrNew(_ faultCase: Case) async throws {
        try await withPCSCD { pcscd in
            let hex = faultCase.new.map { String(format: "%02X", $0) }.joined()
            let reader = VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger)
            let full = try reader.present(try faultCase.makeCard(faultCase.old))
            try await waitUntilReaderHasACard(pcscd, slot: 0)
            let written = try await TagRouterBinary.run(
                ["write", "--ndef", hex, "--reader", "*00"], environment: pcscd.environment)
            #expect(written.status == 0, "\(written.standardError)")
            await full.remove()
            let commands = full.commandCount
            try #require(commands >= 5, "a full write took \(commands) commands")
            try await waitUntilReaderIsEmpty(pcscd, slot: 0)
            #expect(try await readBack(full.card, pcscd: pcscd) == .message(faultCase.new))
            print("fault suite: \(faultCase.name): a full write answers \(commands) commands; vanishing at each")

            var seen: Set<String> = []
            for limit in 0..<commands {
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
                let expected: [TagReading.Content] = [.message(faultCase.old), .empty, .message(faultCase.new)]
                #expect(
                    expected.contains(content),
                    "\(faultCase.name): vanishing at command \(limit + 1) of \(commands) left \(content)")
                seen.insert(content == .message(faultCase.old) ? "old" : content == .empty ? "empty" : "new")
            }
            print("fault suite: \(faultCase.name): states seen after the rips: \(seen.sorted())")
            #expect(seen.contains("old") && seen.contains("new"))
        }
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
