import Testing
import VirtualTag

import enum TestSupport.Hex

/// The Type 4 emulation at APDU level: the NDEF application's select / read state machine.
struct Type4CardTests {
    static let message = Hex.bytes("D1 01 04 55 04 61 2E 62")
    static let selectV2 = "00 A4 04 00 07 D2 76 00 00 85 01 01 00"
    static let selectV1 = "00 A4 04 00 07 D2 76 00 00 85 01 00 00"

    /// Sends each command in turn and checks each response.
    func exchange(
        _ card: inout Type4Card, _ script: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (command, response) in script {
            #expect(
                Hex.string(card.respond(to: Hex.bytes(command))) == Hex.string(Hex.bytes(response)),
                "after \(command)", sourceLocation: sourceLocation)
        }
    }

    @Test func readsTheMessageTheWayNFCForumReadersDo() throws {
        var card = try Type4Card(message: Self.message)
        #expect(card.atr == Hex.bytes("3B 81 80 01 80 80"))
        exchange(
            &card,
            [
                ("FF CA 00 00 00", "04 52 61 7A 3C 69 80 90 00"),
                (Self.selectV2, "90 00"),
                ("00 A4 00 0C 02 E1 03", "90 00"),
                ("00 B0 00 00 0F", "00 0F 20 00 FF 00 FF 04 06 E1 04 01 00 00 00 90 00"),
                ("00 A4 00 0C 02 E1 04", "90 00"),
                ("00 B0 00 00 02", "00 08 90 00"),
                ("00 B0 00 02 08", "D1 01 04 55 04 61 2E 62 90 00"),
                ("00 B0 00 FE 04", "00 00 62 82"),
                ("00 B0 01 00 01", "6B 00"),
            ])
    }

    @Test func mappingV1CardRefusesTheV2ApplicationAndAcceptsV1() throws {
        var options = Type4Card.Options()
        options.mapping = .v1
        var card = try Type4Card(message: Self.message, options: options)
        exchange(
            &card,
            [
                (Self.selectV2, "6A 82"),
                ("00 A4 00 0C 02 E1 03", "6A 82"),
                (Self.selectV1, "90 00"),
                ("00 A4 00 00 02 E1 03", "90 00"),
                ("00 B0 00 00 03", "00 0F 10 90 00"),
            ])
    }

    @Test func readsLongerThanMLeAreRefused() throws {
        var options = Type4Card.Options()
        options.maxResponseLength = 0x3B
        var card = try Type4Card(message: [UInt8](repeating: 0x55, count: 100), options: options)
        exchange(
            &card,
            [
                (Self.selectV2, "90 00"),
                ("00 A4 00 0C 02 E1 04", "90 00"),
                ("00 B0 00 00 3C", "67 00"),
                ("00 B0 00 00 3B", "00 64" + String(repeating: " 55", count: 0x39) + " 90 00"),
            ])
    }

    @Test func extendedFileHasTheLongControlTLVAndA4ByteNLEN() throws {
        var options = Type4Card.Options()
        options.isExtendedFile = true
        options.maxResponseLength = 0x0400
        var card = try Type4Card(message: Self.message, options: options)
        exchange(
            &card,
            [
                (Self.selectV2, "90 00"),
                ("00 A4 00 0C 02 E1 03", "90 00"),
                ("00 B0 00 00 11", "00 11 30 04 00 00 FF 06 08 E1 04 00 00 01 00 00 00 90 00"),
                ("00 A4 00 0C 02 E1 04", "90 00"),
                ("00 B0 00 00 00 00 0C", "00 00 00 08 D1 01 04 55 04 61 2E 62 90 00"),
            ])
    }

    @Test func commandsOutOfOrderGetTheISOStatusWords() throws {
        var card = try Type4Card(message: Self.message)
        exchange(
            &card,
            [
                ("00 B0 00 00 02", "69 86"),
                ("00 A4 00 0C 02 E1 04", "6A 82"),
                (Self.selectV2, "90 00"),
                ("00 A4 00 0C 02 E1 05", "6A 82"),
                ("00 A4 02 0C 02 E1 04", "6B 00"),
                ("00 CA 00 00 00", "6D 00"),
                ("80 B0 00 00 02", "6E 00"),
                ("00 B0 00", "67 00"),
            ])
        card.powerCycled()
        exchange(&card, [("00 A4 00 0C 02 E1 03", "6A 82")])
    }

    @Test func updateBinaryWritesTheNDEFFileUnlessReadOnly() throws {
        var card = try Type4Card(message: [])
        exchange(
            &card,
            [
                (Self.selectV2, "90 00"), ("00 A4 00 0C 02 E1 04", "90 00"),
                ("00 D6 00 00 04 00 02 D0 00", "90 00"), ("00 B0 00 00 04", "00 02 D0 00 90 00"),
            ])
        var options = Type4Card.Options()
        options.isReadOnly = true
        var readOnly = try Type4Card(message: [], options: options)
        exchange(
            &readOnly,
            [(Self.selectV2, "90 00"), ("00 A4 00 0C 02 E1 04", "90 00"), ("00 D6 00 00 02 00 01", "63 00")])
    }

    @Test func invalidShapesAreRefusedNamingTheOption() {
        var options = Type4Card.Options()
        options.fileSize = 100
        #expect(throws: VirtualTagError.messageTooLarge(tag: "type4", size: 200, capacity: 98)) {
            try Type4Card(message: [UInt8](repeating: 0, count: 200), options: options)
        }
        options.fileSize = 0x8000
        #expect(
            throws: VirtualTagError.invalidOption(tag: "type4", option: "fileSize", reason: "must be at most 32767")
        ) {
            try Type4Card(message: [], options: options)
        }
        #expect(
            VirtualTagError.invalidOption(tag: "type4", option: "fileSize", reason: "must be at most 32767").description
                == "type4: option fileSize must be at most 32767")
    }

    @Test func plainCardGivesItsUIDAndHasNoNDEFApplication() {
        var card = PlainISO14443Card()
        #expect(card.atr == Hex.bytes("3B 81 80 01 01 01"))
        #expect(card.respond(to: Hex.bytes("FF CA 00 00 00")) == Hex.bytes("08 3A 5C 11 90 00"))
        #expect(card.respond(to: Hex.bytes(Self.selectV2)) == Hex.bytes("6A 82"))
        #expect(card.respond(to: Hex.bytes(Self.selectV1)) == Hex.bytes("6A 82"))
        #expect(card.respond(to: Hex.bytes("00 B0 00 00 0F")) == Hex.bytes("6D 00"))
    }
}
