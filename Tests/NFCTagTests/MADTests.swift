import NFCTag
import TestSupport
import Testing

/// The MAD CRC and layout (check values from AOSP `rw_mfc.cc` `MAD_B1`, `MAD_B64`; docs/tags.md).
struct MADTests {
    @Test(
        arguments: [
            ("01" + String(repeating: "03E1", count: 15), 0x14),
            ("01" + String(repeating: "03E1", count: 23), 0xE8),
        ] as [(String, UInt8)])
    func crcCheckValues(body: String, crc: UInt8) {
        #expect(MAD.crc(Hex.bytes(body)) == crc)
    }

    @Test func mad1OfAFormatted1KParsesToFifteenNDEFSectors() throws {
        let bytes = Hex.bytes("14 01" + String(repeating: " 03 E1", count: 15))
        let mad = try #require(MAD(bytes, version: .mad1))
        #expect(mad.info == 0x01)
        #expect(mad.ndefSectors == Array(1...15))
        #expect(mad.encoded == bytes)
        #expect(ClassicTrailer.mad1(for: .classic1K) == mad)
    }

    @Test func mad2CoversSectors17To39() throws {
        let bytes = Hex.bytes("E8 01" + String(repeating: " 03 E1", count: 23))
        let mad = try #require(MAD(bytes, version: .mad2))
        #expect(mad.ndefSectors == Array(17...39))
        #expect(ClassicTrailer.mad2.encoded == bytes)
    }

    @Test func miniMarksSectorsPastItsEndNotApplicable() throws {
        let mad = ClassicTrailer.mad1(for: .mini)
        #expect(mad.ndefSectors == [1, 2, 3, 4])
        #expect(Array(mad.encoded[10..<14]) == Hex.bytes("05 00 05 00"))
        #expect(MAD(mad.encoded, version: .mad1) == mad)
    }

    @Test(
        arguments: [
            "00" + String(repeating: "00", count: 31),  // factory: zeros
            "15 01" + String(repeating: " 03 E1", count: 15),  // CRC off by one
            "14 01 03 E1",  // too short
        ])
    func notAMAD(hex: String) {
        #expect(MAD(Hex.bytes(hex), version: .mad1) == nil)
    }

    @Test func geometry() {
        #expect(MifareClassicModel.allCases.map(\.ndefCapacity) == [192, 720, 3360])
        #expect(MifareClassicModel.allCases.map(\.blockCount) == [20, 64, 256])
        #expect(MifareClassicModel.trailerBlock(ofSector: 39) == 255)
        #expect(MifareClassicModel.firstBlock(ofSector: 33) == 144)
        #expect(MifareClassicModel.sector(ofBlock: 143) == 32)
        #expect(
            (128...143).map(MifareClassicModel.accessGroup(ofBlock:)) == [
                0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3,
            ])
    }
}

/// Access bits: the four trailer values of docs/tags.md, decoded and re-encoded.
struct ClassicAccessBitsTests {
    @Test(
        arguments: [
            ("FF 07 80", [0b000, 0b000, 0b000, 0b001]),
            ("78 77 88", [0b100, 0b100, 0b100, 0b011]),
            ("7F 07 88", [0b000, 0b000, 0b000, 0b011]),
            ("07 8F 0F", [0b010, 0b010, 0b010, 0b110]),
        ] as [(String, [UInt8])])
    func decodesAndEncodes(hex: String, conditions: [UInt8]) throws {
        let bits = try #require(ClassicAccessBits(Hex.bytes(hex)))
        #expect(bits.conditions == conditions)
        #expect(bits.encoded == Hex.bytes(hex))
    }

    @Test func inconsistentCopiesAreRejected() {
        #expect(ClassicAccessBits(Hex.bytes("FF 07 81")) == nil)
        #expect(ClassicAccessBits(Hex.bytes("00 00 00")) == nil)
        #expect(ClassicAccessBits(Hex.bytes("FF 07")) == nil)
    }

    @Test func whoMayWhat() {
        let ndef = ClassicAccessBits.ndef
        #expect(ndef.canWrite(group: 0, with: .a) && ndef.canRead(group: 2, with: .a))
        #expect(!ndef.canWriteKeyA(with: .a) && ndef.canWriteKeyA(with: .b) && ndef.canWriteAccessBits(with: .b))
        #expect(!ndef.isKeyBReadable)
        let mad = ClassicAccessBits.mad
        #expect(
            mad.canRead(group: 0, with: .a) && !mad.canWrite(group: 0, with: .a) && mad.canWrite(group: 0, with: .b))
        let readOnly = ClassicAccessBits.readOnly
        #expect(!readOnly.canWrite(group: 1, with: .a) && !readOnly.canWrite(group: 1, with: .b))
        #expect(
            !readOnly.canWriteAccessBits(with: .b) && !readOnly.canWriteKeyB(with: .b)
                && readOnly.canRead(group: 0, with: .b))
        let factory = ClassicAccessBits.factory
        #expect(factory.isKeyBReadable && factory.canWriteKeyA(with: .a) && factory.canWriteAccessBits(with: .a))
        // A readable key B authenticates but may do nothing.
        #expect(!factory.canRead(group: 0, with: .b) && !factory.canWrite(group: 0, with: .b))
    }

    @Test func trailersAreTheFormattersBytes() {
        #expect(ClassicTrailer.ndef() == Hex.bytes("D3F7D3F7D3F7 7F0788 40 FFFFFFFFFFFF"))
        #expect(ClassicTrailer.ndef(isReadOnly: true) == Hex.bytes("D3F7D3F7D3F7 078F0F 43 FFFFFFFFFFFF"))
        #expect(ClassicTrailer.mad(gpb: 0xC1) == Hex.bytes("A0A1A2A3A4A5 787788 C1 FFFFFFFFFFFF"))
        #expect(ClassicTrailer.factory == Hex.bytes("FFFFFFFFFFFF FF0780 69 FFFFFFFFFFFF"))
    }
}
