import NFCTag

/// Lays out a MIFARE Classic card's memory: the manufacturer block, then either the factory trailers everywhere
/// or the NFC Forum layout a formatter writes (MAD1, MAD2 on a 4K, NDEF trailers, the TLV stream in the NDEF
/// sectors' data blocks).
enum MifareClassicLayout {
    /// The factory trailer: keys `FFFFFFFFFFFF`, access bits `FF 07 80`, GPB `69`.
    static let factoryTrailer: [UInt8] = hex("FFFFFFFFFFFF FF0780 69 FFFFFFFFFFFF")
    /// An NDEF sector's trailer, key B left to the caller: key A `D3F7D3F7D3F7`, `7F 07 88`, GPB `40`.
    static let ndefTrailer: [UInt8] = hex("D3F7D3F7D3F7 7F0788 40 FFFFFFFFFFFF")
    /// A read-only NDEF sector's trailer: `07 8F 0F`, GPB `43`.
    static let readOnlyNDEFTrailer: [UInt8] = hex("D3F7D3F7D3F7 078F0F 43 FFFFFFFFFFFF")
    /// A MAD sector's trailer (GPB `C1` set by the caller): key A `A0A1A2A3A4A5`, `78 77 88`.
    static let madTrailer: [UInt8] = hex("A0A1A2A3A4A5 787788 C1 FFFFFFFFFFFF")
    /// A read-only MAD sector's trailer: `07 8F 0F`.
    static let readOnlyMADTrailer: [UInt8] = hex("A0A1A2A3A4A5 078F0F C1 FFFFFFFFFFFF")

    /// Block 0: UID, BCC, SAK, ATQA (low byte first) and manufacturer bytes.
    static func manufacturerBlock(model: MifareClassicModel, uid: [UInt8]) -> [UInt8] {
        let sak: UInt8 =
            switch model {
            case .mini: 0x09
            case .classic1K: 0x08
            case .classic4K: 0x18
            }
        let atqa: [UInt8] = model == .classic4K ? [0x02, 0x00] : [0x04, 0x00]
        return uid + [uid.reduce(0, ^), sak] + atqa + hex("62 63 64 65 66 67 68 69")
    }

    /// A factory-fresh card: every trailer the factory one, data blocks zero.
    static func factory(model: MifareClassicModel, uid: [UInt8]) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: model.blockCount * 16)
        memory.replaceSubrange(0..<16, with: manufacturerBlock(model: model, uid: uid))
        for sector in 0..<model.sectorCount {
            let trailer = MifareClassicModel.trailerBlock(ofSector: sector)
            memory.replaceSubrange((trailer * 16)..<(trailer * 16 + 16), with: factoryTrailer)
        }
        return memory
    }

    /// An NDEF-formatted card holding `message` in its NDEF TLV (a 3-byte length from 255 bytes).
    static func ndef(
        model: MifareClassicModel, message: [UInt8], options: MifareClassicCard.Options
    ) throws(VirtualTagError) -> [UInt8] {
        var memory = factory(model: model, uid: options.uid)
        func put(_ block: Int, _ bytes: [UInt8]) {
            memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: bytes)
        }
        let keyB = options.keyB
        let gpb: UInt8 = model == .classic4K ? 0xC2 : 0xC1
        var mad = options.isReadOnly ? readOnlyMADTrailer : madTrailer
        mad[9] = gpb
        mad.replaceSubrange(10..<16, with: keyB)
        let mad1 = ClassicTrailer.mad1(for: model).encoded
        put(1, Array(mad1[0..<16]))
        put(2, Array(mad1[16..<32]))
        put(3, mad)
        if model == .classic4K {
            let mad2 = ClassicTrailer.mad2.encoded
            for index in 0..<3 { put(64 + index, Array(mad2[(index * 16)..<(index * 16 + 16)])) }
            put(67, mad)
        }
        var trailer = options.isReadOnly ? readOnlyNDEFTrailer : ndefTrailer
        trailer.replaceSubrange(10..<16, with: keyB)
        var blocks: [Int] = []
        for sector in model.ndefSectors {
            put(MifareClassicModel.trailerBlock(ofSector: sector), trailer)
            blocks += MifareClassicModel.dataBlocks(ofSector: sector)
        }

        let header: [UInt8] =
            message.count < 0xFF
            ? [0x03, UInt8(message.count)]
            : [0x03, 0xFF, UInt8(message.count >> 8 & 0xFF), UInt8(message.count & 0xFF)]
        let stream = header + message + [0xFE]
        let capacity = blocks.count * 16
        guard stream.count <= capacity else {
            let largest = capacity - 3 < 0xFF ? capacity - 3 : max(capacity - 5, 0xFE)
            throw .messageTooLarge(tag: options.name(model), size: message.count, capacity: largest)
        }
        for (index, byte) in stream.enumerated() {
            memory[blocks[index / 16] * 16 + index % 16] = byte
        }
        return memory
    }

    /// Bytes from hex with spaces.
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace }.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
        }
    }
}
