/// An emulated NFC Forum Type 5 tag (ISO 15693, an ICODE SLIX2 by default) behind a reader that maps the PC/SC
/// storage-card commands to single blocks (docs/tags.md, "Type 5 tags"):
///
/// - `FF CA 00 00 00` gives the 8-byte UID least significant byte first (`… 04 E0`), as sent on air.
/// - `FF B0 <hi> <lo> <Le>` reads one block (HID OMNIKEY form); with ``Options/blockInP1`` the block number is in
///   P1 and its high byte in P2 (Windows NFC class extension form), so the OMNIKEY form reads block × 256 and
///   fails with `6B 00`. An Le other than the block size answers `6C <block size>`; a block past the memory `6B 00`.
/// - `FF D6 <hi> <lo> <block size> <data>` writes one block: another Lc answers `67 00`, a read-only tag `69 82`.
public struct Type5Card: VirtualCard {
    /// The layout and the reader's command forms.
    public struct Options: Sendable, Hashable {
        /// The UID as displayed, most significant byte first (`E0 04 …`: NXP).
        public var uid: [UInt8] = [0xE0, 0x04, 0x01, 0x50, 0x8A, 0x3C, 0x2D, 0x1F]
        /// 4 (ICODE, ST25, Tag-it) or 8 (Fujitsu FRAM).
        public var blockSize = 4
        /// The number of blocks (ICODE SLIX2: 80).
        public var blockCount = 80
        /// An eight-byte capability container (`E2 40 00 01 00 00 <MLEN>`, ST25DV style) instead of four bytes.
        public var eightByteCC = false
        /// The capability container's magic is `E2` (2-byte block numbers) instead of `E1`.
        public var twoByteAddressing = false
        /// The CC's write access bits are `11` and every UPDATE is refused with `69 82`.
        public var isReadOnly = false
        /// Not NDEF formatted: the memory is all zeros (no CC).
        public var isBlank = false
        /// The reader takes the block number in P1 (and its high byte in P2).
        public var blockInP1 = false
        /// The ATR's standard byte: `0B` (ISO 15693 part 3) or `0C` (Windows) and the like.
        public var standard: UInt8 = 0x0B

        /// The defaults: an ICODE SLIX2 with a four-byte CC on an OMNIKEY-style reader.
        public init() {}
    }

    /// The UID as displayed (`E0 04 …`).
    public let uid: [UInt8]
    /// The whole memory from block 0.
    public private(set) var memory: [UInt8]
    let options: Options

    /// The ISO 15693 storage-card ATR, card name `00 14` (NXP ICODE).
    public var atr: [UInt8] { ATR.storageCard(standard: options.standard, cardName: 0x0014) }

    /// Builds a tag holding `message` in an NDEF TLV after the capability container (MLEN counts the whole memory
    /// for a four-byte CC, the memory after it for an eight-byte one).
    /// - Parameters:
    ///   - message: the NDEF message bytes; empty gives an empty NDEF TLV.
    ///   - options: the layout.
    /// - Throws: ``VirtualTagError`` when the message does not fit or an option is out of range.
    public init(message: [UInt8], options: Options = Options()) throws(VirtualTagError) {
        guard options.uid.count == 8 else {
            throw .invalidOption(tag: "type5", option: "uid", reason: "must be 8 bytes")
        }
        guard options.blockSize == 4 || options.blockSize == 8 else {
            throw .invalidOption(tag: "type5", option: "blockSize", reason: "must be 4 or 8")
        }
        guard options.blockCount >= 2, options.blockCount <= (options.twoByteAddressing ? 65536 : 256) else {
            throw .invalidOption(tag: "type5", option: "blockCount", reason: "must be 2 to 256 (65536 with E2)")
        }
        self.uid = options.uid
        self.options = options
        let total = options.blockSize * options.blockCount
        guard !options.isBlank else {
            memory = [UInt8](repeating: 0, count: total)
            return
        }
        let magic: UInt8 = options.twoByteAddressing ? 0xE2 : 0xE1
        let access: UInt8 = options.isReadOnly ? 0x43 : 0x40
        let cc: [UInt8]
        if options.eightByteCC {
            let mlen = (total - 8) / 8
            cc = [magic, access, 0x00, 0x01, 0x00, 0x00, UInt8(mlen >> 8), UInt8(mlen & 0xFF)]
        } else {
            cc = [magic, access, UInt8(min(total / 8, 255)), 0x01]
        }
        let header: [UInt8] =
            message.count < 0xFF
            ? [0x03, UInt8(message.count)] : [0x03, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let capacity = total - cc.count - (message.count < 0xFF ? 2 : 4)
        guard message.count <= capacity, message.count <= 0xFFFE else {
            throw .messageTooLarge(tag: "type5", size: message.count, capacity: capacity)
        }
        var image = cc + header + message
        if image.count < total { image.append(0xFE) }
        memory = image + [UInt8](repeating: 0, count: total - image.count)
    }

    /// Builds a tag from a raw memory image (for malformed layouts); it is padded to whole blocks.
    public init(memory: [UInt8], options: Options = Options()) {
        self.uid = options.uid
        self.options = options
        let size = max(1, (memory.count + options.blockSize - 1) / options.blockSize) * options.blockSize
        self.memory = memory + [UInt8](repeating: 0, count: size - memory.count)
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        guard apdu.cla == 0xFF else { return StatusWord.claNotSupported }
        let block = options.blockInP1 ? Int(apdu.p2) << 8 | Int(apdu.p1) : Int(apdu.p1) << 8 | Int(apdu.p2)
        let size = options.blockSize
        switch apdu.ins {
        case 0xCA:
            return apdu.p1 == 0x00 ? uid.reversed() + StatusWord.ok : StatusWord.functionNotSupported
        case 0xB0:
            guard block < memory.count / size else { return StatusWord.wrongParameters }
            guard apdu.le == size else { return [0x6C, UInt8(size)] }
            return Array(memory[(block * size)..<((block + 1) * size)]) + StatusWord.ok
        case 0xD6:
            guard block < memory.count / size else { return StatusWord.wrongParameters }
            guard apdu.data.count == size else { return StatusWord.wrongLength }
            guard !options.isReadOnly else { return StatusWord.securityNotSatisfied }
            memory.replaceSubrange((block * size)..<((block + 1) * size), with: apdu.data)
            return StatusWord.ok
        default:
            return StatusWord.insNotSupported
        }
    }
}
