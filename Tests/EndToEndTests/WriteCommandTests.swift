import Foundation
import Logging
import NDEF
import NFCTag
import PCSC
import Testing
import VirtualTag

import struct TestSupport.HarnessError
import class TestSupport.PrivatePCSCD
import enum TestSupport.TagRouterBinary

/// `tagrouter write`, the built binary, against virtual tags on the private pcscd; every result is read back with
/// `tagrouter read --json` and checked in the emulated tag's memory.
@Suite(.needsRoot, .timeLimit(.minutes(45))) struct WriteCommandTests {
    let logger = Logger(label: "test")

    static func uriMessage(_ uri: String) throws -> [UInt8] {
        try NDEFMessage(records: [URIRecord(uri: uri).record]).encoded()
    }

    /// Presents `card` on `slot`, runs `tagrouter write` with `arguments`, then removes the card.
    /// - Returns: the write's output, what `tagrouter read --json` printed afterwards (nil when not asked), and
    ///   the card as the write left it.
    func write(
        _ arguments: [String], on card: some VirtualCard, slot: Int = 0, readBack: Bool = true,
        pcscd: PrivatePCSCD
    ) async throws -> (output: TagRouterBinary.Output, read: TagRouterBinary.Output?, card: any VirtualCard) {
        let presented = try VirtualReader(port: pcscd.vpcdPort(slot: slot), logger: logger).present(card)
        try await waitUntilReaderHasACard(pcscd, slot: slot)
        let pattern = ["--reader", "*0\(slot)"]
        let output = try await TagRouterBinary.run(["write"] + arguments + pattern, environment: pcscd.environment)
        let read =
            readBack
            ? try await TagRouterBinary.run(["read", "--json"] + pattern, environment: pcscd.environment) : nil
        await presented.remove()
        try await waitUntilReaderIsEmpty(pcscd, slot: slot)
        return (output, read, presented.card)
    }

    @Test func writesAURIOnAFactoryNTAG213KeepingItsLockControlTLV() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag213, message: try Self.uriMessage("https://example.com/old"))
            let uri = "https://example.com/" + String(repeating: "new/", count: 15)
            let (output, read, after) = try await write(["--uri", uri, "--json"], on: card, pcscd: pcscd)
            #expect(output.status == 0, "\(output.standardError)")
            let message = try Self.uriMessage(uri)
            #expect(output.standardOutput.contains(#""uri":"\#(uri)""#))
            #expect(output.standardOutput.contains(#""bytes":\#(message.count)"#))
            #expect(output.standardOutput.contains(#""capacity":137"#))
            #expect(output.standardOutput.contains(#""locked":false"#))
            #expect(output.standardOutput.contains(#""tech":"type2""#))
            #expect(read?.status == 0)
            #expect(read?.standardOutput.contains(#""uri":"\#(uri)""#) == true, "\(read?.standardOutput ?? "")")
            let memory = try #require(after as? Type2Card).memory
            #expect(Array(memory[16..<23]) == [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, UInt8(message.count)])
        }
    }

    /// The kinds beside Types 2 and 4, each written by `tagrouter write` through pcscd and read back: a factory
    /// MIFARE Classic card (formatted first), an NDEF Classic 4K, a Type 5 tag and a FeliCa Lite-S. A Topaz
    /// (Type 1) is refused with the tag untouched.
    @Test(arguments: [
        VirtualTagKind.classic1kBlank, .classic4k, .type5, .felica,
    ])
    func writesEveryOtherKindAndReadsItBack(kind: VirtualTagKind) async throws {
        try await withPCSCD { pcscd in
            let card = try kind.card(holding: kind.isFactoryFresh ? [] : Self.uriMessage("https://example.com/old"))
            let uri = "https://example.com/\(kind.rawValue)/written"
            let (output, read, _) = try await write(["--uri", uri, "--json"], on: card, pcscd: pcscd)
            #expect(output.status == 0, "\(kind): \(output.standardError)")
            #expect(read?.status == 0)
            #expect(read?.standardOutput.contains(#""uri":"\#(uri)""#) == true, "\(read?.standardOutput ?? "")")
        }
    }

    @Test func refusesATopazTagUntouched() async throws {
        try await withPCSCD { pcscd in
            let old = try Self.uriMessage("https://example.com/topaz")
            let card = try VirtualTagKind.type1.card(holding: old)
            let (output, read, _) = try await write(["--uri", "https://example.com/new"], on: card, pcscd: pcscd)
            #expect(output.status == 2, "\(output.standardError)")
            #expect(output.standardError.contains("Type 1 (Topaz)"), "\(output.standardError)")
            #expect(read?.standardOutput.contains(#""uri":"https://example.com/topaz""#) == true)
        }
    }

    @Test func writesATextRecordOnAType4TagInChunksOfItsMLc() async throws {
        try await withPCSCD { pcscd in
            var options = Type4Card.Options()
            options.maxCommandLength = 0x10
            let card = try Type4Card(message: [], options: options)
            let text = "Kitchen light, second switch from the door"
            let (output, read, after) = try await write(
                ["--text", text, "--lang", "en-GB"], on: card, slot: 1, pcscd: pcscd)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains("tech     type4\n"))
            #expect(output.standardOutput.contains("record 1  well-known T  \(text)"))
            #expect(read?.standardOutput.contains(#""text":"\#(text)""#) == true, "\(read?.standardOutput ?? "")")
            #expect(read?.standardOutput.contains(#""lang":"en-GB""#) == true)
            let file = try #require(after as? Type4Card).ndefFile
            let message = try NDEFMessage(records: [TextRecord(text: text, language: "en-GB").record]).encoded()
            #expect(Array(file.prefix(2 + message.count)) == [0, UInt8(message.count)] + message)
        }
    }

    @Test func writesAHomeAssistantTagWithANewRandomIDOrTheOneGiven() async throws {
        try await withPCSCD { pcscd in
            // 63 bytes: more than an Ultralight holds.
            let card = try Type2Card(model: .ntag213, message: [])
            let (random, read, _) = try await write(["--ha-tag", "--json"], on: card, pcscd: pcscd)
            #expect(random.status == 0, "\(random.standardError)")
            let pattern =
                /"uri":"https:\/\/www\.home-assistant\.io\/tag\/([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})"/
            let written = try #require(random.standardOutput.firstMatch(of: pattern)?.1)
            #expect(read?.standardOutput.contains(String(written)) == true)

            let (given, readGiven, _) = try await write(["--ha-tag", "front-door"], on: card, pcscd: pcscd)
            #expect(given.status == 0, "\(given.standardError)")
            #expect(
                readGiven?.standardOutput.contains(#""uri":"https://www.home-assistant.io/tag/front-door""#) == true)
        }
    }

    @Test func refusesAMessageLargerThanTheTagNamingBothSizesAndLeavesItUntouched() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ultralight, message: try Self.uriMessage("https://example.com/keep"))
            let (output, read, after) = try await write(
                ["--ndef", "D1 01 2F 55 04" + String(repeating: " 61", count: 46)], on: card, pcscd: pcscd)
            #expect(output.status == 2)
            #expect(
                output.standardError
                    == "reader \"Virtual PCD 00 00\": the message is 51 bytes; this Type 2 tag holds at most 46 bytes; "
                    + "nothing was written\n")
            #expect(try #require(after as? Type2Card).memory == card.memory)
            #expect(read?.standardOutput.contains("https://example.com/keep") == true)
        }
    }

    @Test func refusesReadOnlyTagsOfBothKinds() async throws {
        try await withPCSCD { pcscd in
            var type2Options = Type2Card.Options(model: .ntag213)
            type2Options.isReadOnly = true
            let type2 = try Type2Card(model: .ntag213, message: [], options: type2Options)
            let (output2, _, after2) = try await write(
                ["--uri", "https://a.example"], on: type2, readBack: false, pcscd: pcscd)
            #expect(output2.status == 2)
            #expect(
                output2.standardError
                    == "reader \"Virtual PCD 00 00\": Type 2 capability container at byte 15: access 0x0F makes the "
                    + "tag read-only; nothing was written\n")
            #expect(try #require(after2 as? Type2Card).memory == type2.memory)

            var type4Options = Type4Card.Options()
            type4Options.isReadOnly = true
            let type4 = try Type4Card(message: [], options: type4Options)
            let (output4, _, after4) = try await write(
                ["--uri", "https://a.example"], on: type4, slot: 1, readBack: false, pcscd: pcscd)
            #expect(output4.status == 2)
            #expect(
                output4.standardError
                    == "reader \"Virtual PCD 00 01\": Type 4 NDEF file E104: write access 0xFF makes the tag "
                    + "read-only; nothing was written\n")
            #expect(try #require(after4 as? Type4Card).ndefFile == type4.ndefFile)
        }
    }

    @Test func refusesACardWithoutNDEFAndAnUnconfirmedLock() async throws {
        try await withPCSCD { pcscd in
            let (plain, _, _) = try await write(
                ["--uri", "https://a.example"], on: PlainISO14443Card(), readBack: false, pcscd: pcscd)
            #expect(plain.status == 2)
            #expect(plain.standardError.contains("without the NDEF application"), "\(plain.standardError)")

            let card = try Type2Card(model: .ntag213, message: [])
            let (unconfirmed, _, after) = try await write(
                ["--uri", "https://a.example", "--lock"], on: card, readBack: false, pcscd: pcscd)
            #expect(unconfirmed.status == 2)
            #expect(
                unconfirmed.standardError
                    == "--lock makes the tag permanently read-only; this cannot be undone. Standard input is not a "
                    + "terminal to confirm on, so add --yes.\n")
            #expect(try #require(after as? Type2Card).memory == card.memory)

            let type4 = try Type4Card(message: [])
            let (type4Lock, _, after4) = try await write(
                ["--uri", "https://a.example", "--lock", "--yes"], on: type4, slot: 1, readBack: false, pcscd: pcscd)
            #expect(type4Lock.status == 2)
            #expect(type4Lock.standardError.contains("cannot be made read-only with standard commands"))
            #expect(try #require(after4 as? Type4Card).ndefFile == type4.ndefFile)
        }
    }

    /// `--lock --yes` on an NTAG213: written, locked, still readable; a second write is refused and changes
    /// nothing, and the emulated tag itself refuses page writes under its lock bits.
    @Test func locksAnNTAG213ForGood() async throws {
        try await withPCSCD { pcscd in
            let card = try Type2Card(model: .ntag213, message: [])
            let (output, read, after) = try await write(
                ["--uri", "https://example.com/locked", "--lock", "--yes"], on: card, pcscd: pcscd)
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains("locked   permanently read-only\n"))
            #expect(read?.standardOutput.contains("https://example.com/locked") == true)
            var locked = try #require(after as? Type2Card)
            #expect(Array(locked.memory[10..<16]) == [0xFF, 0xFF, 0xE1, 0x10, 0x12, 0x0F])
            #expect(Array(locked.memory[160..<162]) == [0xFF, 0x0F])
            for page in [4, 15, 16, 39] {
                #expect(locked.respond(to: [0xFF, 0xD6, 0x00, UInt8(page), 0x04, 0, 0, 0, 0]) == [0x63, 0x00])
            }

            let (again, readAgain, afterAgain) = try await write(
                ["--uri", "https://example.com/other"], on: locked, pcscd: pcscd)
            #expect(again.status == 2)
            #expect(again.standardError.contains("access 0x0F makes the tag read-only; nothing was written"))
            #expect(try #require(afterAgain as? Type2Card).memory == locked.memory)
            #expect(readAgain?.standardOutput.contains("https://example.com/locked") == true)
        }
    }

    @Test func writesAMessageFromAFileThenAnEmptyMessage() async throws {
        try await withPCSCD { pcscd in
            let message = try Self.uriMessage("https://example.com/from-a-file")
            let path = NSTemporaryDirectory() + "tagrouter-write-\(UUID().uuidString).ndef"
            try Data(message).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let card = try Type2Card(model: .ntag215, message: [])
            let (fromFile, read, written) = try await write(["--file", path], on: card, pcscd: pcscd)
            #expect(fromFile.status == 0, "\(fromFile.standardError)")
            #expect(read?.standardOutput.contains("https://example.com/from-a-file") == true)

            let (emptied, readEmpty, _) = try await write(["--ndef", ""], on: written, pcscd: pcscd)
            #expect(emptied.status == 0, "\(emptied.standardError)")
            #expect(emptied.standardOutput.contains("written  0 of 492 bytes, read back and verified"))
            #expect(emptied.standardOutput.contains("empty NDEF message"))
            #expect(readEmpty?.standardOutput.contains(#""records":[]"#) == true, "\(readEmpty?.standardOutput ?? "")")
        }
    }

    @Test func waitsForATagPresentedLater() async throws {
        try await withPCSCD { pcscd in
            async let run = TagRouterBinary.run(
                ["write", "--wait", "--uri", "tel:+123", "--json"], environment: pcscd.environment)
            try await Task.sleep(for: .milliseconds(700))
            let card = try Type2Card(model: .ntag215, message: [])
            let presented = try VirtualReader(port: pcscd.vpcdPort(slot: 1), logger: logger).present(card)
            let output = try await run
            #expect(output.status == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains(#""reader":"Virtual PCD 00 01""#))
            await presented.remove()
            let memory = try #require(presented.card as? Type2Card).memory
            #expect(
                try Type2TLV.ndefMessage(inDataArea: Array(memory[16..<(16 + 496)]))
                    == .message(Self.uriMessage("tel:+123")))
        }
    }

    @Test(arguments: [
        (["--uri", "https://a.b", "--text", "x"], "give exactly one of --uri, --text, --ndef, --file, --ha-tag"),
        ([String](), "give exactly one of --uri, --text, --ndef, --file, --ha-tag"),
        (["--ndef", "0g"], "--ndef 0g: hex input"),
        (["--ndef", "D1 01"], "--ndef D1 01:"),
        (["--ha-tag", "a/b"], "--ha-tag a/b: a tag ID is 1 to 128 letters"),
        (["--uri", "https://a.b", "id"], "a tag ID argument goes with --ha-tag"),
        (["--text", "x", "--lang", ""], "--text / --lang:"),
    ])
    func invalidOptionsAreRefusedBeforeConnecting(arguments: [String], message: String) async throws {
        let output = try await TagRouterBinary.run(["write"] + arguments, environment: [:])
        #expect(output.status == 64)
        #expect(output.standardError.contains(message), "\(output.standardError)")
    }
}

/// Waits until pcscd reports no card in the slot's reader (a card swap on one reader is only seen after that).
func waitUntilReaderIsEmpty(_ pcscd: PrivatePCSCD, slot: Int) async throws {
    let context = try await PCSCContext.establish(logger: Logger(label: "test"))
    for _ in 0..<250 {
        let statuses = try await context.status(of: [pcscd.readerName(slot: slot)])
        if !statuses.contains(where: \.isCardPresent) {
            await context.release()
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    await context.release()
    throw HarnessError("the card on slot \(slot) was still there after 5 s")
}

/// Waits until pcscd reports a card in the slot's reader.
func waitUntilReaderHasACard(_ pcscd: PrivatePCSCD, slot: Int) async throws {
    let context = try await PCSCContext.establish(logger: Logger(label: "test"))
    for _ in 0..<250 {
        let statuses = try await context.status(of: [pcscd.readerName(slot: slot)])
        if statuses.contains(where: \.isCardPresent) {
            await context.release()
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
    await context.release()
    throw HarnessError("no card appeared on slot \(slot) within 5 s")
}
