import Testing
import VirtualTag

import enum TestSupport.Hex

/// The Type 2 emulation at APDU level: memory layouts and the ACR122U-style commands.
struct Type2CardTests {
    /// A URI record for `https://a.b`.
    static let uriMessage = Hex.bytes("D1 01 04 55 04 61 2E 62")

    @Test func factoryNTAG213LayoutHasUIDPagesCCAndLockControlBeforeTheNDEFTLV() throws {
        let card = try Type2Card(model: .ntag213, message: Self.uriMessage)
        #expect(card.memory.count == 45 * 4)
        #expect(
            Array(card.memory[0..<32])
                == Hex.bytes(
                    "04 A1 B2 9F  C3 D4 E5 80  72 48 00 00  E1 10 12 00  01 03 A0 0C 34 03 08 D1 01 04 55 04 61 2E 62 FE"
                ))
        #expect(card.memory[32..<160].allSatisfy { $0 == 0 })
        #expect(Array(card.memory[164..<172]) == Hex.bytes("04 00 00 FF 00 05 00 00"))
        #expect(card.atr == Hex.bytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68"))
    }

    @Test(arguments: [
        ("FF CA 00 00 00", "04 A1 B2 C3 D4 E5 80 90 00"),
        ("FF B0 00 03 10", "E1 10 12 00 01 03 A0 0C 34 03 08 D1 01 04 55 04 90 00"),
        ("FF B0 00 04 04", "01 03 A0 0C 90 00"),
        ("FF B0 00 2C 10", "00 00 00 00 04 A1 B2 9F C3 D4 E5 80 72 48 00 00 90 00"),
        ("FF B0 00 2D 10", "63 00"),
        ("FF B0 00 04 00", "01 03 A0 0C 34 03 08 D1 01 04 55 04 61 2E 62 FE 90 00"),
        ("FF CA 01 00 00", "6A 81"),
        ("FF 00 00 00 02 D4 4A", "6D 00"),
        ("00 B0 00 04 10", "6E 00"),
        ("FF B0", "67 00"),
    ])
    func answersLikeAnACR122U(command: String, response: String) throws {
        var card = try Type2Card(model: .ntag213, message: Self.uriMessage)
        #expect(card.respond(to: Hex.bytes(command)) == Hex.bytes(response))
    }

    @Test func identivStyleReaderAnswersOnePagePerRead() throws {
        var options = Type2Card.Options(model: .ntag213)
        options.bytesPerRead = 4
        var card = try Type2Card(model: .ntag213, message: Self.uriMessage, options: options)
        #expect(card.respond(to: Hex.bytes("FF B0 00 03 10")) == Hex.bytes("E1 10 12 00 90 00"))
    }

    @Test func messagesOf255BytesOrMoreGetTheThreeByteLength() throws {
        let message = [UInt8](repeating: 0xAB, count: 300)
        let card = try Type2Card(model: .ntag215, message: message)
        #expect(Array(card.memory[12..<20]) == Hex.bytes("E1 10 3E 00 03 FF 01 2C"))
        #expect(Array(card.memory[20..<320]) == message)
        #expect(card.memory[320] == 0xFE)
        #expect(card.memory.count == 135 * 4)
    }

    @Test func memoryControlReservedBytesInsideTheDataAreaAreSkipped() throws {
        var options = Type2Card.Options(model: .ultralight)
        options.memoryControl = [0x28, 0x04, 0x04]  // 4 bytes at byte 40 (page 10)
        let message = [UInt8](0..<30)
        let card = try Type2Card(model: .ultralight, message: message, options: options)
        let stream = Hex.bytes("02 03 28 04 04 03 1E") + message + [0xFE]
        #expect(Array(card.memory[40..<44]) == [0xEE, 0xEE, 0xEE, 0xEE])
        #expect(Array(card.memory[16..<40] + card.memory[44..<58]) == stream)
        #expect(card.memory.count == 16 * 4)
    }

    @Test func readOnlyCapabilityContainerRefusesWrites() throws {
        var options = Type2Card.Options(model: .ntag213)
        options.isReadOnly = true
        var card = try Type2Card(model: .ntag213, message: [], options: options)
        #expect(card.memory[15] == 0x0F)
        #expect(card.respond(to: Hex.bytes("FF D6 00 04 04 03 00 FE 00")) == Hex.bytes("63 00"))
    }

    @Test func writesChangeOnePageOfUserMemoryOnly() throws {
        var card = try Type2Card(model: .ultralight, message: [])
        #expect(card.respond(to: Hex.bytes("FF D6 00 05 04 11 22 33 44")) == Hex.bytes("90 00"))
        #expect(card.respond(to: Hex.bytes("FF B0 00 05 04")) == Hex.bytes("11 22 33 44 90 00"))
        #expect(card.respond(to: Hex.bytes("FF D6 00 03 04 E1 10 06 0F")) == Hex.bytes("63 00"))
        #expect(card.respond(to: Hex.bytes("FF D6 00 10 04 00 00 00 00")) == Hex.bytes("63 00"))
        #expect(card.respond(to: Hex.bytes("FF D6 00 05 02 11 22")) == Hex.bytes("67 00"))
    }

    @Test(arguments: [
        (Type2Model.ntag213, 137, "ntag213: a 137-byte NDEF message does not fit; 136 bytes are free for it"),
        (.ultralight, 46, "ultralight: a 46-byte NDEF message does not fit; 45 bytes are free for it"),
        (.ntag215, 492, "ntag215: a 492-byte NDEF message does not fit; 491 bytes are free for it"),
        (.ntag216, 868, "ntag216: a 868-byte NDEF message does not fit; 867 bytes are free for it"),
    ])
    func tooLargeMessagesAreRefusedNamingTheTag(model: Type2Model, size: Int, expected: String) {
        #expect(throws: VirtualTagError.self) { try Type2Card(model: model, message: .init(repeating: 1, count: size)) }
        do {
            _ = try Type2Card(model: model, message: .init(repeating: 1, count: size))
        } catch {
            #expect(error.description == expected)
        }
        #expect((try? Type2Card(model: model, message: .init(repeating: 1, count: size - 1))) != nil)
    }

    @Test func rawMemoryImagesArePaddedToTheModelSize() {
        var card = Type2Card(
            model: .ultralight, memory: Hex.bytes("04 A1 B2 9F C3 D4 E5 80 72 48 00 00 E1 10 06 00 03"))
        #expect(card.memory.count == 64)
        #expect(
            card.respond(to: Hex.bytes("FF B0 00 04 10")) == Hex.bytes("03") + [UInt8](repeating: 0, count: 15)
                + Hex.bytes("90 00"))
    }
}
