import NFCTag
import TestSupport
import Testing

/// `FeliCaCommand`: command frames as a card receives them, written out byte by byte from the FeliCa frame layout
/// (docs/tags.md, "Type 3 tags"), and what a card ignores.
struct FeliCaCommandTests {
    static let idm = Hex.bytes("01 27 00 5D 1A 2B 3C 4D")
    static let otherIDm = Hex.bytes("01 27 00 5D 1A 2B 3C 4E")

    /// Puts the length byte, which counts itself, in front of a frame's body.
    static func frame(_ body: [UInt8]) -> [UInt8] { [UInt8(body.count + 1)] + body }

    @Test("Polling gives its system code; a frame of another length is ignored")
    func polling() {
        #expect(FeliCaCommand(frame: Hex.bytes("06 00 12 FC 00 00"), idm: Self.idm) == .polling(system: 0x12FC))
        #expect(FeliCaCommand(frame: Hex.bytes("06 00 FF FF 01 00"), idm: Self.idm) == .polling(system: 0xFFFF))
        #expect(FeliCaCommand(frame: Hex.bytes("05 00 12 FC 00"), idm: Self.idm) == nil)
        // The length byte must count the frame.
        #expect(FeliCaCommand(frame: Hex.bytes("07 00 12 FC 00 00"), idm: Self.idm) == nil)
        #expect(FeliCaCommand(frame: [], idm: Self.idm) == nil)
    }

    @Test("Read Without Encryption: the service little-endian, two- and three-byte block elements")
    func read() {
        let twoBlocks = Self.frame([0x06] + Self.idm + Hex.bytes("01 0B 00 02 80 00 80 01"))
        #expect(twoBlocks.first == 0x12)
        #expect(
            FeliCaCommand(frame: twoBlocks, idm: Self.idm)
                == .blocks(code: 0x06, service: 0x000B, blocks: [0, 1], data: []))
        // Block 300 (0x012C) needs the three-byte element `00 lo hi`.
        let far = Self.frame([0x06] + Self.idm + Hex.bytes("01 0B 00 02 80 0D 00 2C 01"))
        #expect(
            FeliCaCommand(frame: far, idm: Self.idm)
                == .blocks(code: 0x06, service: 0x000B, blocks: [13, 300], data: []))
    }

    @Test("Write Without Encryption carries the data after the block list")
    func write() {
        let data = [UInt8](0..<16)
        let frame = Self.frame([0x08] + Self.idm + Hex.bytes("01 09 00 01 80 05") + data)
        #expect(
            FeliCaCommand(frame: frame, idm: Self.idm) == .blocks(code: 0x08, service: 0x0009, blocks: [5], data: data))
    }

    @Test("A card ignores another card's IDm, unknown commands and block lists cut short")
    func ignored() {
        let read = Hex.bytes("01 0B 00 01 80 00")
        #expect(FeliCaCommand(frame: Self.frame([0x06] + Self.otherIDm + read), idm: Self.idm) == nil)
        #expect(FeliCaCommand(frame: Self.frame([0x0A] + Self.idm + read), idm: Self.idm) == nil)
        // Two blocks announced, one element given; then a three-byte element missing its last byte.
        #expect(
            FeliCaCommand(frame: Self.frame([0x06] + Self.idm + Hex.bytes("01 0B 00 02 80 00")), idm: Self.idm) == nil)
        #expect(
            FeliCaCommand(frame: Self.frame([0x06] + Self.idm + Hex.bytes("01 0B 00 01 00 2C")), idm: Self.idm) == nil)
    }

    @Test("A read or write naming other than one service gets the card's 'unsupported' status")
    func serviceCount() {
        let two = Self.frame([0x06] + Self.idm + Hex.bytes("02 0B 00 09 00 01 80 00"))
        #expect(FeliCaCommand(frame: two, idm: Self.idm) == .unsupportedServiceCount(code: 0x06))
        let none = Self.frame([0x08] + Self.idm + Hex.bytes("00 09 00 01"))
        #expect(FeliCaCommand(frame: none, idm: Self.idm) == .unsupportedServiceCount(code: 0x08))
    }
}
