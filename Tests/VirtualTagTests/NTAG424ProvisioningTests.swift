import Foundation
import NDEF
import NFCTag
import NTAG424
import SUNMessage
import Synchronization
import Testing
import VirtualTag

/// `NTAG424Provisioner` against the emulated NTAG 424 DNA, driven directly: a factory tag provisioned and read
/// as a phone reads it, a dry run that changes nothing, a second run, a tag holding unknown keys, keys
/// diversified per UID, and a tag taken away at every command, before the command and after it (its answer
/// lost), which the same provisioning run again always finishes, no key ever being other than the old or the
/// new one.
struct NTAG424ProvisioningTests {
    static let master = [UInt8](repeating: 0xA0, count: 15) + [0x01]
    static let meta = [UInt8](repeating: 0xB1, count: 16)
    static let file = [UInt8](repeating: 0xC2, count: 16)
    static let zero = NTAG424Provisioner.Keys.factory
    static let keys = NTAG424Provisioner.Keys(master: master, metaRead: meta, fileRead: { _ in file })
    static let template: NTAG424Provisioner.Template = {
        do {
            return try NTAG424Provisioner.Template(uri: "https://door.example/open")
        } catch {
            fatalError("\(error)")
        }
    }()

    /// Reads the card as a phone does and verifies its SUN message with the given keys, its MAC over the URL as
    /// the tag stores it (after the URI identifier code) up to the MAC.
    static func sun(_ card: Type4Card, meta: [UInt8] = meta, file: [UInt8] = file) async throws -> SUNCrypto.Verdict {
        var card = card
        card.powerCycled()
        let reading = try await TagReader().read(atr: card.atr, channel: CardChannelAdapter(card))
        guard case .message(let bytes) = reading.content, case let message = try NDEFMessage(decoding: bytes),
            let uri = message.tagURI, let query = uri.split(separator: "?").last, let mac = uri.range(of: "&m=")
        else { return .malformed("no URI") }
        let macInput = Array(uri[..<mac.upperBound].utf8.dropFirst(message.tagURIPrefixLength))
        var items: [String: [UInt8]] = [:]
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=")
            items[String(parts[0])] = HexText.bytes(parts[1])
        }
        return SUNCrypto.verify(
            piccData: items["p"] ?? [], mac: items["m"] ?? [], encData: nil, macInput: macInput, metaReadKey: meta,
            fileReadKey: file)
    }

    @Test func aFactoryTagIsProvisionedAndEveryReadMirrorsAFreshVerifiedMessage() async throws {
        let card = try Type4Card.ntag424()
        let channel = CardChannelAdapter(card)
        let result = try await NTAG424Provisioner().provision(
            Self.template, keys: Self.keys, atr: card.atr, channel: channel)
        #expect(result.keysChanged == [1, 2, 0])
        #expect(result.counter == 1)
        #expect(result.keysAlreadyNew == [])
        #expect(result.uid == [0x04, 0x52, 0x61, 0x7A, 0x3C, 0x69, 0x80])
        let chip = try #require(channel.card.chip)
        #expect(chip.keys[0] == Self.master && chip.keys[1] == Self.meta && chip.keys[2] == Self.file)
        #expect(chip.keyVersions[0...2] == [1, 1, 1])
        #expect(result.sent.contains { $0.hasPrefix("ChangeFileSettings file 02: SDM on") })
        // The MAC's input starts at the URL's first stored character: NLEN (2), the record header D1 01 len 'U'
        // (4), the identifier code (1).
        #expect(Self.template.macInputOffset == 7)
        #expect(chip.sdm?.macInputOffset == 7)
        guard case .verified(let first) = try await Self.sun(channel.card) else {
            Issue.record("the provisioned tag's message does not verify")
            return
        }
        #expect(first.uid == result.uid)
        #expect(first.counter == 2)
        // A stranger cannot rewrite the URL any more: the NDEF file is written with key 0 only.
        var rewrite = channel.card
        rewrite.powerCycled()
        await #expect(throws: NFCTagError.self) {
            try await Type4Writer().write([0xD1, 0x01, 0x01, 0x55, 0x00], to: CardChannelAdapter(rewrite))
        }
        // With the old (factory) keys the message does not verify.
        let withFactoryKeys = try await Self.sun(channel.card, meta: Self.zero, file: Self.zero)
        // Decrypted with the wrong key, the PICCData starts with C7 once in 256 reads (random padding): then the MAC
        // is what fails.
        #expect(withFactoryKeys == .wrongKey || withFactoryKeys == .badMAC, "\(withFactoryKeys)")
    }

    @Test func aDryRunAuthenticatesButChangesNothing() async throws {
        let card = try Type4Card.ntag424()
        let channel = CardChannelAdapter(card)
        let result = try await NTAG424Provisioner().provision(
            Self.template, keys: Self.keys, atr: card.atr, channel: channel, dryRun: true)
        #expect(result.counter == nil)
        #expect(result.planned.first == "WriteData file 02 offset 0: NLEN 0")
        #expect(
            result.planned.suffix(3) == [
                "ChangeKey 1 (SDMMetaRead), version 1", "ChangeKey 2 (SDMFileRead), version 1",
                "ChangeKey 0 (AppMasterKey), version 1",
            ])
        let chip = try #require(channel.card.chip)
        #expect(chip.keys == Array(repeating: Self.zero, count: 5))
        #expect(chip.sdm == nil)
        #expect(channel.card.ndefFile == card.ndefFile)
        #expect(!channel.commands.contains { [0x8D, 0x5F, 0xC4].contains($0[1]) && $0[0] == 0x90 })
    }

    @Test func runningItAgainFindsTheNewKeysAndChangesNone() async throws {
        let card = try Type4Card.ntag424()
        let first = CardChannelAdapter(card)
        _ = try await NTAG424Provisioner().provision(Self.template, keys: Self.keys, atr: card.atr, channel: first)
        var again = first.card
        again.powerCycled()
        let second = CardChannelAdapter(again)
        let result = try await NTAG424Provisioner().provision(
            Self.template, keys: Self.keys, atr: card.atr, channel: second)
        #expect(result.keysChanged == [])
        #expect(result.keysAlreadyNew == [1, 2, 0])
        #expect(result.counter == 2)
    }

    @Test func aTagHoldingAnUnknownKeyIsRefusedWithNothingChanged() async throws {
        let card = try Type4Card.ntag424()
        let other = NTAG424Provisioner.Keys(
            master: [UInt8](repeating: 0x77, count: 16), metaRead: Self.meta, fileRead: { _ in Self.file })
        let first = CardChannelAdapter(card)
        _ = try await NTAG424Provisioner().provision(Self.template, keys: other, atr: card.atr, channel: first)
        var provisioned = first.card
        provisioned.powerCycled()
        let before = provisioned
        // Key 0 is now 77…77: neither the factory key nor Self.master.
        let channel = CardChannelAdapter(provisioned)
        await #expect {
            try await NTAG424Provisioner().provision(Self.template, keys: Self.keys, atr: card.atr, channel: channel)
        } throws: { error in
            (error as? NFCTagError)?.code == .authenticationFailed
                && (error as? NFCTagError)?.message.contains("key 0") == true
        }
        #expect(channel.card.chip?.keys == before.chip?.keys)
        #expect(channel.card.ndefFile == before.ndefFile)
    }

    @Test func aFileReadKeyDiversifiedPerUIDIsWrittenAndVerifies() async throws {
        let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x80]
        let card = try Type4Card.ntag424(uid: uid)
        let input: [UInt8] = [0x30, 0x42, 0xF5] + Array("TagRouter".utf8)
        let keys = NTAG424Provisioner.Keys(
            master: Self.master, metaRead: Self.meta,
            fileRead: { try SUNCrypto.diversified(masterKey: Self.file, input: $0 + input) })
        let channel = CardChannelAdapter(card)
        _ = try await NTAG424Provisioner().provision(Self.template, keys: keys, atr: card.atr, channel: channel)
        let expected = try SUNCrypto.diversified(masterKey: Self.file, input: uid + input)
        #expect(channel.card.chip?.keys[2] == expected)
        guard case .verified = try await Self.sun(channel.card, file: expected) else {
            Issue.record("the diversified key does not verify")
            return
        }
    }

    /// A channel that gives the card `limit` commands; the next one the card either never receives or carries
    /// out with its answer lost, and the channel then fails as a removed tag does.
    final class RippingChannel: CardChannel {
        struct Removed: Error {}
        private let state: Mutex<(card: Type4Card, count: Int)>
        private let limit: Int
        private let appliesLast: Bool

        init(_ card: Type4Card, limit: Int, appliesLast: Bool) {
            state = Mutex((card, 0))
            self.limit = limit
            self.appliesLast = appliesLast
        }

        var card: Type4Card { state.withLock { $0.card } }

        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            try state.withLock { state in
                state.count += 1
                guard state.count <= limit else {
                    if appliesLast, state.count == limit + 1 { _ = state.card.respond(to: command) }
                    throw Removed()
                }
                return state.card.respond(to: command)
            }
        }
    }

    @Test(arguments: [false, true])
    func aTagTakenAwayAtEveryCommandIsFinishedByTheSameCommandAgain(answerLost: Bool) async throws {
        let card = try Type4Card.ntag424()
        let full = CardChannelAdapter(card)
        _ = try await NTAG424Provisioner().provision(Self.template, keys: Self.keys, atr: card.atr, channel: full)
        let commands = full.commands.count
        try #require(commands > 20, "a provisioning took \(commands) commands")
        let allowed = [Self.zero, Self.master, Self.meta, Self.file]
        for limit in 0..<commands {
            let ripped = RippingChannel(try Type4Card.ntag424(), limit: limit, appliesLast: answerLost)
            await #expect(throws: NFCTagError.self) {
                try await NTAG424Provisioner().provision(
                    Self.template, keys: Self.keys, atr: card.atr, channel: ripped)
            }
            var left = ripped.card
            let keys = try #require(left.chip?.keys)
            #expect(keys[0] == Self.zero || keys[0] == Self.master, "rip at command \(limit + 1): key 0 unknown")
            #expect(keys[1] == Self.zero || keys[1] == Self.meta, "rip at command \(limit + 1): key 1 unknown")
            #expect(keys[2] == Self.zero || keys[2] == Self.file, "rip at command \(limit + 1): key 2 unknown")
            #expect(keys.allSatisfy(allowed.contains))
            left.powerCycled()
            let again = CardChannelAdapter(left)
            let result = try await NTAG424Provisioner().provision(
                Self.template, keys: Self.keys, atr: card.atr, channel: again)
            #expect(result.counter != nil, "rip at command \(limit + 1): the second run did not verify")
            #expect(again.card.chip?.keys[0...2] == [Self.master, Self.meta, Self.file])
        }
    }
}
