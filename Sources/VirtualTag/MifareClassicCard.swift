public import NFCTag

/// An emulated MIFARE Classic 1K, 4K or Mini card answering the PC/SC storage-card pseudo-APDUs the way an
/// ACR122U does (docs/tags.md, "MIFARE Classic"): `FF CA` gives the 4-byte UID; LOAD KEY `FF 82 00|20 <slot>
/// 06 <key>` fills volatile slots 0-1; AUTHENTICATE `FF 86 00 00 05 01 00 <block> 60|61 <slot>` or the obsolete
/// `FF 88 00 <block> 60|61 <slot>` opens one sector; READ `FF B0 00 <block> 10` (or Le `00`) and UPDATE
/// `FF D6 00 <block> 10 <16 bytes>` work inside it as its access bits allow. Every failure answers `63 00`.
///
/// Keys, access bits and GPB are enforced: key A reads back as zeros, key B only where readable (and a readable
/// key B authenticates but is refused everything), a trailer write changes only the parts the key may write,
/// block 0 never changes. A failed authentication, read or write ends the authentication; the card then takes
/// a new AUTHENTICATE as a reader that re-selects on its own does.
public struct MifareClassicCard: VirtualCard {
    /// The card's keys and layout choices.
    public struct Options: Sendable, Hashable {
        /// The 4-byte UID.
        public var uid: [UInt8] = [0x5A, 0x3C, 0x91, 0x0E]
        /// The NFC Forum layout made read-only (`07 8F 0F`, GPB `43`): writes are refused.
        public var isReadOnly = false
        /// Key B of every formatted sector (formatters write `FFFFFFFFFFFF`); another value makes locking
        /// impossible, as with a card whose key B is unknown.
        public var keyB: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

        /// Default options: UID `5A3C910E`, read/write, key B `FFFFFFFFFFFF`.
        public init() {}

        /// The `--tag` style name of a model, for messages.
        func name(_ model: MifareClassicModel) -> String {
            switch model {
            case .mini: "classicmini"
            case .classic1K: "classic1k"
            case .classic4K: "classic4k"
            }
        }
    }

    /// The model.
    public let model: MifareClassicModel
    /// The UID.
    public let uid: [UInt8]
    /// The whole memory, 16 bytes per block.
    public private(set) var memory: [UInt8]
    /// What each volatile key slot holds.
    private var slots: [[UInt8]?] = [nil, nil]
    /// The authenticated sector and key.
    private var session: (sector: Int, key: ClassicAccessBits.Key)?

    /// The storage-card ATR with card name `00 01` (1K), `00 02` (4K) or `00 26` (Mini).
    public var atr: [UInt8] {
        let name: UInt16 =
            switch model {
            case .mini: 0x0026
            case .classic1K: 0x0001
            case .classic4K: 0x0002
            }
        return ATR.storageCard(standard: 0x03, cardName: name)
    }

    /// Builds an NDEF-formatted card holding `message`, laid out as NFC Tools and Android format a card.
    /// - Parameters:
    ///   - model: the card model.
    ///   - message: the NDEF message; empty gives an empty NDEF TLV.
    ///   - options: keys and layout choices.
    /// - Throws: ``VirtualTagError`` when the message does not fit or an option is out of range.
    public init(model: MifareClassicModel, message: [UInt8], options: Options = Options()) throws(VirtualTagError) {
        try Self.check(options, model: model)
        self.model = model
        self.uid = options.uid
        self.memory = try MifareClassicLayout.ndef(model: model, message: message, options: options)
    }

    /// Builds a factory-fresh card: every key `FFFFFFFFFFFF`, access bits `FF 07 80`, no MAD (a door fob).
    /// - Parameters:
    ///   - model: the card model.
    ///   - uid: the 4-byte UID.
    /// - Returns: the card.
    public static func factoryFresh(model: MifareClassicModel, uid: [UInt8] = Options().uid) -> MifareClassicCard {
        MifareClassicCard(model: model, memory: MifareClassicLayout.factory(model: model, uid: uid), uid: uid)
    }

    /// Builds a card from a raw memory image (for malformed layouts); it is padded or cut to the model's size.
    /// - Parameters:
    ///   - model: the card model.
    ///   - memory: the bytes from block 0.
    ///   - uid: the UID answered to `FF CA`.
    public init(model: MifareClassicModel, memory: [UInt8], uid: [UInt8] = Options().uid) {
        self.model = model
        self.uid = uid
        let size = model.blockCount * 16
        self.memory = Array((memory + [UInt8](repeating: 0, count: size)).prefix(size))
    }

    private static func check(_ options: Options, model: MifareClassicModel) throws(VirtualTagError) {
        guard options.uid.count == 4 else {
            throw .invalidOption(tag: options.name(model), option: "uid", reason: "must be 4 bytes")
        }
        guard options.keyB.count == 6 else {
            throw .invalidOption(tag: options.name(model), option: "keyB", reason: "must be 6 bytes")
        }
    }

    /// Forgets the authentication and the volatile keys.
    public mutating func powerCycled() {
        session = nil
        slots = [nil, nil]
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        // The obsolete AUTHENTICATE has no Lc: FF 88 00 <block> <key type> <slot>.
        if command.count == 6, command[0] == 0xFF, command[1] == 0x88 {
            guard command[2] == 0x00 else { return StatusWord.failed }
            return authenticate(block: Int(command[3]), keyType: command[4], slot: Int(command[5]))
        }
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        guard apdu.cla == 0xFF else { return StatusWord.claNotSupported }
        switch apdu.ins {
        case 0xCA:
            return apdu.uidAnswer(uid)
        case 0x82:
            guard apdu.p1 == 0x00 || apdu.p1 == 0x20, apdu.p2 < 2, apdu.data.count == 6 else {
                return StatusWord.failed
            }
            slots[Int(apdu.p2)] = apdu.data
            return StatusWord.ok
        case 0x86:
            let data = apdu.data
            guard apdu.p1 == 0, apdu.p2 == 0, data.count == 5, data[0] == 0x01, data[1] == 0x00 else {
                return fail()
            }
            return authenticate(block: Int(data[2]), keyType: data[3], slot: Int(data[4]))
        case 0xB0:
            guard apdu.p1 == 0, apdu.le == 16 || apdu.le == 256 else { return fail() }
            return read(block: Int(apdu.p2))
        case 0xD6:
            guard apdu.p1 == 0, apdu.data.count == 16 else { return fail() }
            return write(block: Int(apdu.p2), data: apdu.data)
        default:
            return StatusWord.insNotSupported
        }
    }

    /// Ends the authentication and answers `63 00`.
    private mutating func fail() -> [UInt8] {
        session = nil
        return StatusWord.failed
    }

    private func trailer(ofSector sector: Int) -> ArraySlice<UInt8> {
        let block = MifareClassicModel.trailerBlock(ofSector: sector)
        return memory[(block * 16)..<(block * 16 + 16)]
    }

    private func access(ofSector sector: Int) -> ClassicAccessBits? {
        ClassicAccessBits(trailer(ofSector: sector).dropFirst(6).prefix(3))
    }

    private mutating func authenticate(block: Int, keyType: UInt8, slot: Int) -> [UInt8] {
        session = nil
        guard block < model.blockCount, slot < 2, let key = slots[slot], keyType == 0x60 || keyType == 0x61 else {
            return StatusWord.failed
        }
        let sector = MifareClassicModel.sector(ofBlock: block)
        let trailer = trailer(ofSector: sector)
        let stored = keyType == 0x60 ? trailer.prefix(6) : trailer.suffix(6)
        // Inconsistent access bits block the sector for good.
        guard access(ofSector: sector) != nil, Array(stored) == key else { return StatusWord.failed }
        session = (sector, keyType == 0x60 ? .a : .b)
        return StatusWord.ok
    }

    private mutating func read(block: Int) -> [UInt8] {
        guard let (sector, key) = session, block < model.blockCount,
            MifareClassicModel.sector(ofBlock: block) == sector, let access = access(ofSector: sector)
        else { return fail() }
        let group = MifareClassicModel.accessGroup(ofBlock: block)
        let bytes = Array(memory[(block * 16)..<(block * 16 + 16)])
        guard group == 3 else {
            return access.canRead(group: group, with: key) ? bytes + StatusWord.ok : fail()
        }
        guard access.canReadAccessBits(with: key) else { return fail() }
        let keyB = access.canReadKeyB(with: key) ? Array(bytes[10..<16]) : [UInt8](repeating: 0, count: 6)
        return [UInt8](repeating: 0, count: 6) + bytes[6..<10] + keyB + StatusWord.ok
    }

    private mutating func write(block: Int, data: [UInt8]) -> [UInt8] {
        guard let (sector, key) = session, block > 0, block < model.blockCount,
            MifareClassicModel.sector(ofBlock: block) == sector, let access = access(ofSector: sector)
        else { return fail() }
        let start = block * 16
        let group = MifareClassicModel.accessGroup(ofBlock: block)
        guard group == 3 else {
            guard access.canWrite(group: group, with: key) else { return fail() }
            memory.replaceSubrange(start..<(start + 16), with: data)
            return StatusWord.ok
        }
        let parts = [
            (0..<6, access.canWriteKeyA(with: key)), (6..<10, access.canWriteAccessBits(with: key)),
            (10..<16, access.canWriteKeyB(with: key)),
        ]
        guard parts.contains(where: \.1) else { return fail() }
        for (range, allowed) in parts where allowed {
            memory.replaceSubrange((start + range.lowerBound)..<(start + range.upperBound), with: data[range])
        }
        return StatusWord.ok
    }
}
