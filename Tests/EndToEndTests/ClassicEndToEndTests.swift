import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Testing
import VirtualTag

import enum TestSupport.Hex
import enum TestSupport.TagRouterBinary

/// MIFARE Classic end to end (issue 13): the built binary and the libraries against the private pcscd, with
/// emulated Classic cards on vpcd.
@Suite(.needsRoot, .serialized, .timeLimit(.minutes(45))) struct ClassicEndToEndTests {
    let logger = Logger(label: "test")

    @Test func readJSONOnAnNDEFClassic1K() async throws {
        try await withPCSCD { pcscd in
            let uri = "https://example.com/classic"
            let card = try MifareClassicCard(model: .classic1K, message: try RouterHarness.uriMessage(uri))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""tech":"mifare-classic""#), "\(output.standardOutput)")
            #expect(output.standardOutput.contains(#""uid":"5A3C910E""#))
            #expect(output.standardOutput.contains(#""atr":"3B8F8001804F0CA000000306030001000000006A""#))
            #expect(output.standardOutput.contains(#""uri":"\#(uri)""#))
            await presented.remove()
            // The UID, LOAD KEY, AUTHENTICATE, 2 MAD reads, LOAD KEY, AUTHENTICATE, 2 reads for the 26-byte TLV.
            #expect(presented.commandCount == 1 + 8)
        }
    }

    /// A card whose MAD says NDEF but whose sector 2 has another key: one sentence naming the reader, the
    /// sector, the block and the card byte.
    @Test func readFailsNamingTheReaderSectorAndByteWhenAnNDEFSectorRefusesItsKey() async throws {
        try await withPCSCD { pcscd in
            let message = try RouterHarness.uriMessage("https://example.com/" + String(repeating: "x", count: 60))
            var memory = try MifareClassicCard(model: .classic1K, message: message).memory
            memory.replaceSubrange((11 * 16)..<(11 * 16 + 6), with: Hex.bytes("11 22 33 44 55 66"))
            let card = MifareClassicCard(model: .classic1K, memory: memory)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(["read", "--json"], environment: pcscd.environment)
            #expect(output.status == 1)
            #expect(
                output.standardError
                    == "reader \"Virtual PCD 00 00\": MIFARE Classic 1K sector 2 (block 8, byte 128) refused the NDEF key A "
                    + "D3F7D3F7D3F7, though the MAD marks it NDEF\n")
            await presented.remove()
        }
    }

    @Test(arguments: [MifareClassicModel.classic1K, .classic4K, .mini])
    func readJSONOnAFactoryFreshCardShowsItsUIDAndNoRecords(model: MifareClassicModel) async throws {
        try await withPCSCD { pcscd in
            let card = MifareClassicCard.factoryFresh(model: model, uid: Hex.bytes("8E3A5C21"))
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
            try await waitUntilPcscdSeesACard(pcscd)
            let output = try await TagRouterBinary.run(
                ["read", "--json", "--reader", "*01"], environment: pcscd.environment)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""tech":"mifare-classic""#), "\(output.standardOutput)")
            #expect(output.standardOutput.contains(#""uid":"8E3A5C21""#))
            #expect(output.standardOutput.contains(#""records":[]"#), "\(output.standardOutput)")
            #expect(!output.standardError.contains("warning"), "\(output.standardError)")
            await presented.remove()
        }
    }

    static let rules =
        "version: 1\nrules:\n"
        + recordingRule(name: "fob", match: #"{ uid: ["8E:3A:5C:21"], tech: [mifare-classic] }"#, marker: "fob")
        + recordingRule(name: "door", match: "{ domains: [example.com] }", marker: "door")

    @Test func theRouterDispatchesAUIDRuleForAFobAndADomainsRuleForAnNDEFCard() async throws {
        try await RouterHarness.with(rules: Self.rules) { harness in
            let fob = try harness.present(MifareClassicCard.factoryFresh(model: .classic1K, uid: Hex.bytes("8E3A5C21")))
            try await harness.waitForDispatch(containing: "fob|")
            try await harness.remove(fob, slot: 0)
            let uri = "https://example.com/room/4"
            let card = try MifareClassicCard(model: .classic4K, message: try RouterHarness.uriMessage(uri))
            let tag = try harness.present(card, slot: 1)
            try await harness.waitForDispatch(containing: "door|")
            try await harness.remove(tag, slot: 1)
            #expect(harness.dispatched == ["fob|Virtual PCD 00 00|", "door|Virtual PCD 00 01|\(uri)"])
            // The fob's refused MAD key is no warning.
            #expect(
                harness.router.lines(containing: " warning ").isEmpty,
                "\(harness.router.lines(containing: " warning "))")
        }
    }

    /// A Classic card ripped away at every command index of a read dispatches nothing; a full tap once.
    @Test func aClassicCardRemovedAtEveryCommandIndexDispatchesNothing() async throws {
        try await RouterHarness.with(rules: FaultTagTests.catchAll) { harness in
            let message = try RouterHarness.uriMessage("https://example.com/" + String(repeating: "long/", count: 18))
            func card(_ uid: [UInt8]) throws -> MifareClassicCard {
                var options = MifareClassicCard.Options()
                options.uid = Array(uid.prefix(4))
                return try MifareClassicCard(model: .classic1K, message: message, options: options)
            }
            let full = try harness.present(try card([0x0C, 0x1A, 0x00, 0x00]))
            try await harness.waitForDispatches(1)
            await full.remove()
            let commands = full.commandCount
            try #require(commands >= 10, "a full Classic read took \(commands) commands")
            print(
                "fault suite: a full Classic 1K read answers \(commands) commands; vanishing after each of 0..<\(commands)"
            )
            try await harness.router.waitForLog("pcsc.card.removed", count: 1)
            for limit in 0..<commands {
                let ripped = try harness.present(try card([0x0C, 0x1B, 0x00, UInt8(limit)]), answeringAtMost: limit)
                await ripped.waitUntilGone()
                try await harness.router.waitForLog("tap.read_failed", count: limit + 1)
                try await harness.router.waitForLog("pcsc.card.removed", count: limit + 2)
                #expect(ripped.commandCount == limit)
                #expect(harness.dispatched.count == 1, "after vanishing at command \(limit + 1) of \(commands)")
            }
            let again = try harness.present(try card([0x0C, 0x1C, 0x00, 0x00]))
            try await harness.waitForDispatches(2)
            await again.remove()
            try await Task.sleep(for: .milliseconds(500))
            #expect(harness.dispatched.count == 2)
            #expect(harness.router.lines(containing: "tap.read_failed").count == commands)
        }
    }

    /// Formats a factory card, rewrites it, locks it and is refused, all through pcscd's `SCardTransmit`.
    @Test func writingFormattingAndLockingThroughPcscd() async throws {
        try await withPCSCD { pcscd in
            let card = MifareClassicCard.factoryFresh(model: .classic1K)
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 0), logger: logger).present(card)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 0)
            try await waitForCard(in: reader, context: context, within: .seconds(5))
            let connection = try await context.connect(to: reader)
            let atr = card.atr
            let writer = MifareClassicWriter(card: ATRInfo(atr: atr).storageCard!.name)

            #expect(try await TagReader().read(atr: atr, channel: connection).content == .absent)
            let first = try RouterHarness.uriMessage("https://example.com/" + String(repeating: "x", count: 200))
            try await writer.write(first, to: connection)
            #expect(try await TagReader().read(atr: atr, channel: connection).content == .message(first))
            let second = try RouterHarness.uriMessage("https://example.com/short")
            try await writer.write(second, to: connection)
            #expect(try await TagReader().read(atr: atr, channel: connection).content == .message(second))
            try await writer.lock(connection)
            let error = await #expect(throws: NFCTagError.self) { try await writer.write(first, to: connection) }
            #expect(error?.code == .readOnly)
            #expect(try await TagReader().read(atr: atr, channel: connection).content == .message(second))

            await connection.disconnect()
            await context.release()
            await presented.remove()
        }
    }

    @Test func emulateClassic1kBlankPresentsAFactoryCard() async throws {
        try await withPCSCD { pcscd in
            let port = pcscd.vpcdPort(slot: 1)
            async let run = TagRouterBinary.run(
                ["emulate", "--tag", "classic1k-blank", "--vpcd", "127.0.0.1:\(port)", "--hold", "3s"],
                environment: pcscd.environment)
            let context = try await PCSCContext.establish(logger: logger)
            let reader = pcscd.readerName(slot: 1)
            try await waitForCard(in: reader, context: context, within: .seconds(5))
            let atr = try #require(try await context.status(of: [reader]).first?.atr)
            let connection = try await context.connect(to: reader)
            let reading = try await TagReader().read(atr: atr, channel: connection)
            #expect(reading == TagReading(uid: Hex.bytes("5A3C910E"), technology: .mifareClassic, content: .absent))
            await connection.disconnect()
            await context.release()
            let output = try await run
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.hasPrefix("presenting classic1k-blank on vpcd 127.0.0.1:\(port)\n"))
        }
    }

    @Test(arguments: [
        (["--tag", "classic1k-blank", "--uri", "https://a.b"], "is a factory-fresh card holding no message"),
        (
            ["--tag", "classicmini", "--ndef", String(repeating: "00", count: 190)],
            "classicmini: a 190-byte NDEF message does not fit; 189 bytes are free for it"
        ),
    ])
    func emulateRefusesAMessageForABlankCardAndOneTooLarge(arguments: [String], message: String) async throws {
        let output = try await TagRouterBinary.run(["emulate", "--vpcd", "127.0.0.1:9"] + arguments, environment: [:])
        #expect(output.status != 0)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}
