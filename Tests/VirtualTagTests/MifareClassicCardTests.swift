import NFCTag
import Testing
import VirtualTag

import enum TestSupport.Hex

/// The MIFARE Classic emulation at APDU level: layouts, keys, access bits, `63 00` on failures.
struct MifareClassicCardTests {
    static let uriMessage = Hex.bytes("D1 01 04 55 04 61 2E 62")

    @Test(
        arguments: [
            (MifareClassicModel.classic1K, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"),
            (.classic4K, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69"),
            (.mini, "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D"),
        ])
    func atrNamesTheCard(model: MifareClassicModel, atr: String) throws {
        let card = try MifareClassicCard(model: model, message: Self.uriMessage)
        #expect(card.atr == Hex.bytes(atr))
        #expect(ATRInfo(atr: card.atr).technology == .mifareClassic)
        #expect(card.memory.count == model.blockCount * 16)
    }

    @Test func ndefLayoutIsWhatAFormatterWrites() throws {
        let card = try MifareClassicCard(model: .classic1K, message: Self.uriMessage)
        let block = { (n: Int) in Array(card.memory[(n * 16)..<(n * 16 + 16)]) }
        #expect(block(0) == Hex.bytes("5A 3C 91 0E F9 08 04 00 62 63 64 65 66 67 68 69"))
        #expect(block(1) == Hex.bytes("14 01 03 E1 03 E1 03 E1 03 E1 03 E1 03 E1 03 E1"))
        #expect(block(2) == Hex.bytes("03 E1 03 E1 03 E1 03 E1 03 E1 03 E1 03 E1 03 E1"))
        #expect(block(3) == Hex.bytes("A0 A1 A2 A3 A4 A5 78 77 88 C1 FF FF FF FF FF FF"))
        #expect(block(4) == Hex.bytes("03 08 D1 01 04 55 04 61 2E 62 FE 00 00 00 00 00"))
        #expect(block(7) == Hex.bytes("D3 F7 D3 F7 D3 F7 7F 07 88 40 FF FF FF FF FF FF"))
        #expect(block(63) == block(7))
    }

    @Test func factoryLayoutHasFactoryTrailersAndNoMAD() {
        let card = MifareClassicCard.factoryFresh(model: .classic4K)
        #expect(Array(card.memory[16..<48]).allSatisfy { $0 == 0 })
        #expect(Array(card.memory[(255 * 16)...]) == Hex.bytes("FF FF FF FF FF FF FF 07 80 69 FF FF FF FF FF FF"))
        #expect(card.memory[5] == 0x18)
    }

    /// Sends a script to one card, each command answered as the table says.
    static func play(_ card: inout MifareClassicCard, _ script: [(String, String)]) {
        for (index, (command, response)) in script.enumerated() {
            #expect(
                card.respond(to: Hex.bytes(command)) == Hex.bytes(response), "command \(index): \(command)")
        }
    }

    @Test func keysAndAuthenticationAreEnforced() throws {
        var card = try MifareClassicCard(model: .classic1K, message: Self.uriMessage)
        Self.play(
            &card,
            [
                ("FF CA 00 00 00", "5A 3C 91 0E 90 00"),
                ("FF B0 00 04 10", "63 00"),  // no authentication
                ("FF 86 00 00 05 01 00 04 60 00", "63 00"),  // empty slot
                ("FF 82 00 02 06 D3 F7 D3 F7 D3 F7", "63 00"),  // ACR122U: slots 0-1 only
                ("FF 82 00 00 06 D3 F7 D3 F7 D3 F7", "90 00"),
                ("FF 86 00 00 05 01 00 03 60 00", "63 00"),  // NDEF key on the MAD sector
                ("FF 86 00 00 05 01 00 04 60 00", "90 00"),
                ("FF B0 00 04 10", "03 08 D1 01 04 55 04 61 2E 62 FE 00 00 00 00 00 90 00"),
                ("FF B0 00 07 00", "00 00 00 00 00 00 7F 07 88 40 00 00 00 00 00 00 90 00"),  // Le 00, keys hidden
                ("FF B0 00 08 10", "63 00"),  // another sector
                ("FF B0 00 04 10", "63 00"),  // the refusal ended the authentication
                ("FF 88 00 05 60 00", "90 00"),  // the obsolete AUTHENTICATE
                ("FF D6 00 05 10 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10", "90 00"),
                ("FF B0 00 05 10", "01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F 10 90 00"),
                ("FF D6 00 07 10 00 00 00 00 00 00 FF 07 80 69 00 00 00 00 00 00", "63 00"),  // trailer: key B only
                ("FF 82 00 01 06 A0 A1 A2 A3 A4 A5", "90 00"),
                ("FF 86 00 00 05 01 00 00 60 01", "90 00"),
                ("FF D6 00 01 10 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "63 00"),  // MAD: write with B
                ("FF D6 00 00 10 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "63 00"),  // block 0
                ("FF 00 00 00 02 D4 4A", "6D 00"),
                ("00 B0 00 04 10", "6E 00"),
            ])
    }

    @Test func keyBChangesTheTrailerAndReadOnlyBitsFreezeTheSector() throws {
        var card = try MifareClassicCard(model: .classic1K, message: Self.uriMessage)
        let readOnly = "D3 F7 D3 F7 D3 F7 07 8F 0F 43 FF FF FF FF FF FF"
        Self.play(
            &card,
            [
                ("FF 82 00 01 06 FF FF FF FF FF FF", "90 00"),
                ("FF 86 00 00 05 01 00 04 61 01", "90 00"),
                ("FF D6 00 07 10 " + readOnly, "90 00"),
                ("FF B0 00 07 10", "00 00 00 00 00 00 07 8F 0F 43 00 00 00 00 00 00 90 00"),
                ("FF D6 00 04 10 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "63 00"),
                ("FF 86 00 00 05 01 00 04 61 01", "90 00"),
                ("FF D6 00 07 10 D3 F7 D3 F7 D3 F7 7F 07 88 40 FF FF FF FF FF FF", "63 00"),
                ("FF 86 00 00 05 01 00 04 61 01", "90 00"),
                ("FF B0 00 05 10", "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 90 00"),
            ])
    }

    @Test func aFactoryKeyBIsReadableAndSoUnusable() {
        var card = MifareClassicCard.factoryFresh(model: .mini)
        Self.play(
            &card,
            [
                ("FF 82 20 00 06 FF FF FF FF FF FF", "90 00"),  // OMNIKEY-style non-volatile P1
                ("FF 86 00 00 05 01 00 13 61 00", "90 00"),
                ("FF B0 00 10 10", "63 00"),
                ("FF 86 00 00 05 01 00 13 60 00", "90 00"),
                ("FF B0 00 13 10", "00 00 00 00 00 00 FF 07 80 69 FF FF FF FF FF FF 90 00"),
                ("FF 86 00 00 05 01 00 14 60 00", "63 00"),  // a Mini has 20 blocks
            ])
    }

    @Test func messageTooLargeNamesTheRoom() {
        #expect(throws: VirtualTagError.messageTooLarge(tag: "classicmini", size: 190, capacity: 189)) {
            try MifareClassicCard(model: .mini, message: [UInt8](repeating: 0, count: 190))
        }
    }
}
