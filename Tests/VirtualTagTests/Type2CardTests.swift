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
        #expect(card.respond(to: Hex.bytes("FF D6 00 10 04 00 00 00 00")) == Hex.bytes("63 00"))
        #expect(card.respond(to: Hex.bytes("FF D6 00 01 04 00 00 00 00")) == Hex.bytes("63 00"))
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

    /// The capability container and the lock bytes are one-time programmable: bits are ORed in, never cleared.
    @Test func capabilityContainerAndStaticLockBytesAreOneTimeProgrammable() throws {
        var card = try Type2Card(model: .ultralight, message: [])
        #expect(card.respond(to: Hex.bytes("FF D6 00 03 04 E1 10 06 0F")) == Hex.bytes("90 00"))
        #expect(card.respond(to: Hex.bytes("FF D6 00 03 04 E1 10 06 00")) == Hex.bytes("90 00"))
        #expect(Array(card.memory[12..<16]) == Hex.bytes("E1 10 06 0F"))
        #expect(card.respond(to: Hex.bytes("FF D6 00 02 04 AA BB 30 01")) == Hex.bytes("90 00"))
        // Bytes 0-1 of page 2 are not written; lock bits L4, L5 and L8 are set.
        #expect(Array(card.memory[8..<12]) == [card.memory[8], card.memory[9], 0x30, 0x01])
        #expect(card.memory[8] != 0xAA)
    }

    /// A set lock bit refuses writes to its page, and the CC lock bit refuses the CC: one row per protected page.
    @Test(arguments: [
        (Type2Model.ultralight, "00 00 10 00", 4, 5),
        (.ultralight, "00 00 80 00", 7, 8),
        (.ultralight, "00 00 00 01", 8, 9),
        (.ultralight, "00 00 00 80", 15, 14),
        (.ultralight, "00 00 08 00", 3, 4),
    ])
    func staticLockBitsProtectTheirPages(model: Type2Model, lockPage: String, locked: Int, free: Int) throws {
        var card = try Type2Card(model: model, message: [])
        #expect(card.respond(to: Hex.bytes("FF D6 00 02 04 " + lockPage)) == Hex.bytes("90 00"))
        let lockedWrite: [UInt8] = [0xFF, 0xD6, 0x00, UInt8(locked), 0x04, 0xE1, 0x10, 0x06, 0x00]
        let freeWrite: [UInt8] = [0xFF, 0xD6, 0x00, UInt8(free), 0x04, 0x11, 0x22, 0x33, 0x44]
        #expect(card.respond(to: lockedWrite) == Hex.bytes("63 00"))
        #expect(card.respond(to: freeWrite) == Hex.bytes("90 00"))
    }

    /// NTAG213's dynamic lock bytes at page 40 lock two pages per bit from page 16; NTAG216's sixteen per bit.
    @Test(arguments: [
        (Type2Model.ntag213, "01 00 00 00", 17, 18),
        (.ntag213, "00 08 00 00", 39, 37),
        (.ntag216, "01 00 00 00", 31, 32),
    ])
    func dynamicLockBitsProtectTheirPages(model: Type2Model, lockBytes: String, locked: Int, free: Int) throws {
        var card = try Type2Card(model: model, message: [])
        let lockPage = 4 + model.userBytes / 4
        #expect(
            card.respond(to: [0xFF, 0xD6, 0x00, UInt8(lockPage), 0x04] + Hex.bytes(lockBytes)) == Hex.bytes("90 00"))
        #expect(card.respond(to: [0xFF, 0xD6, 0x00, UInt8(locked), 0x04, 1, 2, 3, 4]) == Hex.bytes("63 00"))
        #expect(card.respond(to: [0xFF, 0xD6, 0x00, UInt8(free), 0x04, 1, 2, 3, 4]) == Hex.bytes("90 00"))
    }
}
