/// An emulated NFC Forum Type 2 tag (NTAG213/215/216, MIFARE Ultralight) answering like an ACR122U does:
/// `FF CA 00 00 00` gives the UID, `FF B0 00 <page> <Le>` reads 16 bytes (4 pages, rolling over past the last
/// page), `FF D6 00 <page> 04 <data>` writes one page.
public struct Type2Card: VirtualCard {
    /// How the memory image is laid out.
    public struct Options: Sendable, Hashable {
        /// The 7-byte UID.
        public var uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
        /// The Lock Control TLV value (`PA BS PS`) to put before the NDEF TLV; `nil` for none.
        /// Defaults to what a factory-fresh tag of the model carries.
        public var lockControl: [UInt8]?
        /// A Memory Control TLV value (`PA BS PS`); bytes it reserves inside the data area are skipped.
        public var memoryControl: [UInt8]?
        /// A read-only capability container (access byte `0F`): writes are refused.
        public var isReadOnly = false
        /// Bytes answered per read: 16 (ACR122U, ACR1252U) or 4 (Identiv uTrust: one page whatever Le says).
        public var bytesPerRead = 16

        /// Options for a model: its factory Lock Control TLV, 16 bytes per read.
        /// - Parameter model: the tag model.
        public init(model: Type2Model) {
            lockControl = model.factoryLockControl
        }
    }

    /// The model.
    public let model: Type2Model
    /// The UID.
    public let uid: [UInt8]
    /// The whole memory, `model.totalPages × 4` bytes.
    public private(set) var memory: [UInt8]
    let options: Options

    /// The ATR of an ISO 14443A-3 Ultralight/NTAG storage card.
    public var atr: [UInt8] { ATR.storageCard(standard: 0x03, cardName: 0x0003) }

    /// Builds a tag holding `message` in an NDEF TLV (a 3-byte length when the message is 255 bytes or more).
    /// - Parameters:
    ///   - model: the tag model.
    ///   - message: the NDEF message bytes; empty gives an empty NDEF TLV (`03 00`).
    ///   - options: layout options; `nil` for the model's factory layout.
    /// - Throws: ``VirtualTagError`` when the message does not fit or an option is out of range.
    public init(model: Type2Model, message: [UInt8], options: Options? = nil) throws(VirtualTagError) {
        let options = options ?? Options(model: model)
        let name = model.rawValue
        guard options.uid.count == 7 else {
            throw .invalidOption(tag: name, option: "uid", reason: "must be 7 bytes")
        }
        guard options.bytesPerRead == 16 || options.bytesPerRead == 4 else {
            throw .invalidOption(tag: name, option: "bytesPerRead", reason: "must be 4 or 16")
        }
        for (option, value) in [("lockControl", options.lockControl), ("memoryControl", options.memoryControl)] {
            if let value, value.count != 3 {
                throw .invalidOption(tag: name, option: option, reason: "must be 3 bytes (PA BS PS)")
            }
        }
        self.model = model
        self.uid = options.uid
        self.options = options
        self.memory = try Type2Layout(model: model, options: options).memory(holding: message)
    }

    /// Builds a tag from a raw memory image (for malformed layouts); it is padded or cut to the model's size.
    /// - Parameters:
    ///   - model: the tag model.
    ///   - memory: the bytes from page 0.
    ///   - uid: the UID answered to `FF CA`.
    public init(model: Type2Model, memory: [UInt8], uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]) {
        self.model = model
        self.uid = uid
        var options = Options(model: model)
        options.uid = uid
        self.options = options
        let size = model.totalPages * 4
        self.memory = Array((memory + [UInt8](repeating: 0, count: size)).prefix(size))
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        guard apdu.cla == 0xFF else { return StatusWord.claNotSupported }
        switch apdu.ins {
        case 0xB0:
            return read(page: Int(apdu.p2), length: apdu.le ?? 16)
        case 0xD6:
            return write(page: Int(apdu.p2), data: apdu.data)
        case 0xCA:
            return apdu.uidAnswer(uid)
        default:
            return StatusWord.insNotSupported
        }
    }

    private func read(page: Int, length: Int) -> [UInt8] {
        guard page < model.totalPages else { return StatusWord.failed }
        let count = options.bytesPerRead == 4 ? 4 : Swift.min(length == 256 ? 16 : length, 16)
        let start = page * 4
        let bytes = (0..<count).map { memory[(start + $0) % memory.count] }
        return bytes + StatusWord.ok
    }

    /// Writes one page the way an NTAG21x / Ultralight does: page 2 ORs its bytes 2-3 into the static lock
    /// bytes (bytes 0-1 are not written), page 3 (the CC) and the dynamic lock bytes are one-time programmable
    /// (bits are ORed), and a page whose lock bit is set is refused with `63 00` (docs/tags.md, "How a tag is
    /// written"). A read-only card (``Options/isReadOnly``) refuses every write.
    private mutating func write(page: Int, data: [UInt8]) -> [UInt8] {
        guard data.count == 4 else { return StatusWord.wrongLength }
        guard !options.isReadOnly, page >= 2, page < model.totalPages, !isLocked(page: page) else {
            return StatusWord.failed
        }
        switch page {
        case 2:
            memory[10] |= data[2]
            memory[11] |= data[3]
        case 3:
            for offset in 0..<4 { memory[12 + offset] |= data[offset] }
        case let lockPage where lockPage == dynamicLockPage:
            for offset in 0..<3 { memory[page * 4 + offset] |= data[offset] }
        case 4..<(4 + model.userBytes / 4):
            memory.replaceSubrange((page * 4)..<(page * 4 + 4), with: data)
        default:
            return StatusWord.failed
        }
        return StatusWord.ok
    }

    /// The page of the dynamic lock bytes, right after the user memory (none on an Ultralight).
    var dynamicLockPage: Int? { model == .ultralight ? nil : 4 + model.userBytes / 4 }

    /// Whether a lock bit protects `page`: the static lock bits (byte 10 bit 3 the CC, bits 4-7 pages 4-7,
    /// byte 11 pages 8-15; byte 10 bits 1-2 freeze those bits and bit 0 the CC's) and, on NTAG21x, the dynamic
    /// lock bits (one per 2 pages from page 16 on NTAG213, per 16 pages on NTAG215/216; byte 2 freezes them).
    func isLocked(page: Int) -> Bool {
        let static0 = memory[10]
        let static1 = memory[11]
        switch page {
        case 2: return static0 & 0x07 == 0x07
        case 3: return static0 & 0x08 != 0
        case 4..<8: return static0 & (0x10 << (page - 4)) != 0
        case 8..<16: return static1 & (1 << (page - 8)) != 0
        default:
            guard let lockPage = dynamicLockPage else { return false }
            let lockBytes = memory[(lockPage * 4)..<(lockPage * 4 + 3)]
            if page == lockPage { return lockBytes.last == 0xFF }
            guard page < lockPage else { return false }
            let bit = (page - 16) / (model == .ntag213 ? 2 : 16)
            return lockBytes[lockPage * 4 + bit / 8] & (1 << (bit % 8)) != 0
        }
    }
}
