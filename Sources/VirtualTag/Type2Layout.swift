/// Lays out a Type 2 tag's memory: UID pages, capability container, then the TLV stream in the data area,
/// skipping the bytes Lock and Memory Control TLVs reserve there (as readers must, nfcpy `tt2.py`).
struct Type2Layout {
    let model: Type2Model
    let options: Type2Card.Options

    /// The byte that fills reserved bytes inside the data area: a reader that does not skip them reads it.
    static let reservedFiller: UInt8 = 0xEE

    func memory(holding message: [UInt8]) throws(VirtualTagError) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: model.totalPages * 4)
        let uid = options.uid
        memory.replaceSubrange(
            0..<12,
            with: [uid[0], uid[1], uid[2], 0x88 ^ uid[0] ^ uid[1] ^ uid[2]] + Array(uid[3..<7]) + [
                uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, 0x00, 0x00,
            ])
        memory.replaceSubrange(12..<16, with: [0xE1, 0x10, model.ccSize, options.isReadOnly ? 0x0F : 0x00])
        if model != .ultralight {
            let configuration = 4 + model.userBytes / 4 + 1
            memory.replaceSubrange(
                (configuration * 4)..<(configuration * 4 + 8), with: [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00])
        }

        let dataArea = 16..<(16 + Int(model.ccSize) * 8)
        var reserved = Set<Int>()
        var stream: [UInt8] = []
        if let value = options.lockControl {
            stream += [0x01, 0x03] + value
            reserved.formUnion(Self.reservedBytes(value, isLockControl: true))
        }
        if let value = options.memoryControl {
            stream += [0x02, 0x03] + value
            reserved.formUnion(Self.reservedBytes(value, isLockControl: false))
        }
        if message.count < 0xFF {
            stream += [0x03, UInt8(message.count)]
        } else {
            stream += [0x03, 0xFF, UInt8(message.count >> 8 & 0xFF), UInt8(message.count & 0xFF)]
        }
        stream += message
        stream.append(0xFE)

        let usable = dataArea.filter { !reserved.contains($0) }
        guard message.count <= 0xFFFE, stream.count <= usable.count else {
            throw .messageTooLarge(
                tag: model.rawValue, size: message.count, capacity: usable.count - (stream.count - message.count))
        }
        for address in dataArea where reserved.contains(address) {
            memory[address] = Self.reservedFiller
        }
        for (byte, address) in zip(stream, usable) {
            memory[address] = byte
        }
        return memory
    }

    /// The byte addresses a control TLV value `PA BS PS` reserves.
    static func reservedBytes(_ value: [UInt8], isLockControl: Bool) -> Range<Int> {
        let pageAddress = Int(value[0] >> 4)
        let byteOffset = Int(value[0] & 0x0F)
        let pageSize = 1 << Int(value[2] & 0x0F)
        let size = value[1] == 0 ? 256 : Int(value[1])
        let start = pageAddress * pageSize + byteOffset
        return start..<(start + (isLockControl ? (size + 7) / 8 : size))
    }
}
