import NFCTag

/// An emulated FeliCa Lite-S formatted for NDEF (NFC Forum Type 3) behind one of the reader paths TagRouter
/// knows (docs/tags.md, "Type 3 tags"):
///
/// - ``Reader/acr122u``: ATR card name `F0 11`; `FF 00 00 00 Lc D4 40 01 <frame>` → `D5 41 00 <response> 90 00`,
///   `D5 41 01 90 00` when the card does not answer (a frame with a wrong length or another IDm).
/// - ``Reader/acr1252u``: ATR standard `11`, card name `00 3B`; `FF 00 00 00 Lc <frame>` → `<response> 90 00`,
///   `63 00` when the card does not answer.
/// - ``Reader/identiv``: ATR standard `11`; `FF 00` refused with `6A 81`; `FF 46` reads and `FF 48` writes.
///
/// `FF CA 00 00 00` gives the IDm. The card answers Polling for `12FC` or `FFFF`, Read Without Encryption of
/// services `000B`/`0009` (at most 4 blocks) and Write Without Encryption of service `0009` (1 block), with SF1
/// `01` and SF2 `A6` (no such service), `A8` (block out of range) or `A2` (block count) on errors.
public struct FeliCaCard: VirtualCard {
    /// The reader the card is presented through.
    public enum Reader: String, Sendable, Hashable, CaseIterable {
        case acr122u, acr1252u, identiv
    }

    /// The card and reader.
    public struct Options: Sendable, Hashable {
        /// The IDm.
        public var idm: [UInt8] = [0x01, 0x27, 0x00, 0x5D, 0x1A, 0x2B, 0x3C, 0x4D]
        /// The PMm (byte 1 `F1`: FeliCa Lite-S).
        public var pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
        /// The reader path.
        public var reader = Reader.acr122u
        /// RWFlag `00` in the attribute block.
        public var isReadOnly = false
        /// False for a FeliCa Standard card issued without the NDEF system: no service `000B`/`0009` (SF2 `A6`),
        /// no answer to Polling for `12FC`.
        public var hasNDEFSystem = true

        /// The defaults: a Lite-S on an ACR122U.
        public init() {}
    }

    /// User blocks of a FeliCa Lite-S: block 0 (attribute) and 13 data blocks.
    public static let userBlocks = 14
    /// Nbr and Nbw of a Lite-S.
    static let maxRead = 4
    static let maxWrite = 1

    /// The user blocks, 16 bytes each.
    public private(set) var memory: [UInt8]
    let options: Options

    /// The ATR the reader synthesises.
    public var atr: [UInt8] {
        switch options.reader {
        case .acr122u: ATR.storageCard(standard: 0x03, cardName: 0xF011)
        case .acr1252u, .identiv: ATR.storageCard(standard: 0x11, cardName: 0x003B)
        }
    }

    /// Builds a card holding `message`.
    /// - Throws: ``VirtualTagError`` when the message does not fit (208 bytes) or the IDm is not 8 bytes.
    public init(message: [UInt8], options: Options = Options()) throws(VirtualTagError) {
        guard options.idm.count == 8, options.pmm.count == 8 else {
            throw .invalidOption(tag: "felica", option: "idm", reason: "IDm and PMm must be 8 bytes")
        }
        let capacity = (Self.userBlocks - 1) * 16
        guard message.count <= capacity else {
            throw .messageTooLarge(tag: "felica", size: message.count, capacity: capacity)
        }
        self.options = options
        var attribute: [UInt8] = [
            0x10, UInt8(Self.maxRead), UInt8(Self.maxWrite), 0x00, UInt8(Self.userBlocks - 1), 0, 0, 0, 0, 0x00,
            options.isReadOnly ? 0x00 : 0x01, 0x00, UInt8(message.count >> 8), UInt8(message.count & 0xFF),
        ]
        let sum = attribute.reduce(0) { $0 + Int($1) }
        attribute += [UInt8(sum >> 8), UInt8(sum & 0xFF)]
        memory = attribute + message + [UInt8](repeating: 0, count: capacity - message.count)
    }

    /// Builds a card from raw user blocks (for malformed attribute blocks); padded to 14 blocks.
    public init(memory: [UInt8], options: Options = Options()) {
        self.options = options
        self.memory = Array((memory + [UInt8](repeating: 0, count: Self.userBlocks * 16)).prefix(Self.userBlocks * 16))
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        guard apdu.cla == 0xFF else { return StatusWord.claNotSupported }
        switch (apdu.ins, options.reader) {
        case (0xCA, _):
            return apdu.p1 == 0x00 ? options.idm + StatusWord.ok : StatusWord.functionNotSupported
        case (0x00, .acr122u):
            guard apdu.data.count >= 3, apdu.data.prefix(3).elementsEqual([0xD4, 0x40, 0x01]) else {
                return StatusWord.failed
            }
            guard let response = answer(Array(apdu.data.dropFirst(3))) else {
                return [0xD5, 0x41, 0x01] + StatusWord.ok
            }
            return [0xD5, 0x41, 0x00] + response + StatusWord.ok
        case (0x00, .acr1252u):
            guard let response = answer(apdu.data) else { return StatusWord.failed }
            return response + StatusWord.ok
        case (0x46, .identiv), (0x48, .identiv):
            return felicaCommand(apdu)
        case (0x00, .identiv):
            return StatusWord.functionNotSupported
        default:
            return StatusWord.insNotSupported
        }
    }

    /// Answers a FeliCa frame; nil when the card stays silent.
    mutating func answer(_ frame: [UInt8]) -> [UInt8]? {
        switch FeliCaCommand(frame: frame, idm: options.idm) {
        case nil:
            return nil
        case .polling(let system):
            guard system == 0xFFFF || (system == 0x12FC && options.hasNDEFSystem) else { return nil }
            return framed([0x01] + options.idm + options.pmm)
        case .unsupportedServiceCount(let code):
            return framed([code + 1] + options.idm + [0x01, 0xA1])
        case .blocks(let code, let service, let blocks, let data):
            return framed([code + 1] + options.idm + serve(code: code, service: service, blocks: blocks, data: data))
        }
    }

    /// The parameters after the IDm: `SF1 SF2 [n data]`.
    private mutating func serve(code: UInt8, service: Int, blocks: [Int], data: [UInt8]) -> [UInt8] {
        let isRead = code == 0x06
        guard options.hasNDEFSystem else { return [0x01, 0xA6] }
        guard isRead ? (service == 0x000B || service == 0x0009) : service == 0x0009 else { return [0x01, 0xA6] }
        guard !blocks.isEmpty, blocks.count <= (isRead ? Self.maxRead : Self.maxWrite) else { return [0x01, 0xA2] }
        guard blocks.allSatisfy({ $0 < Self.userBlocks }) else { return [0x01, 0xA8] }
        if isRead {
            guard data.isEmpty else { return [0x01, 0xA2] }
            var answer: [UInt8] = [0x00, 0x00, UInt8(blocks.count)]
            for block in blocks { answer += memory[(block * 16)..<(block * 16 + 16)] }
            return answer
        }
        guard data.count == 16 * blocks.count else { return [0x01, 0xA2] }
        for (offset, block) in blocks.enumerated() {
            memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: data[(offset * 16)..<(offset * 16 + 16)])
        }
        return [0x00, 0x00]
    }

    /// `FF 46 <n svc> <n blk> Lc <services LE> <block numbers BE>` (read) and `FF 48 … <data>` (write), answered
    /// `IDm SF1 SF2 [n data] 90 00`.
    private mutating func felicaCommand(_ apdu: CommandAPDU) -> [UInt8] {
        let serviceCount = Int(apdu.p1)
        let blockCount = Int(apdu.p2)
        let listSize = 2 * serviceCount + 2 * blockCount
        guard serviceCount == 1, apdu.data.count >= listSize else { return StatusWord.wrongLength }
        let service = Int(apdu.data[1]) << 8 | Int(apdu.data[0])
        let blocks = (0..<blockCount).map { Int(apdu.data[2 + 2 * $0]) << 8 | Int(apdu.data[3 + 2 * $0]) }
        let code: UInt8 = apdu.ins == 0x46 ? 0x06 : 0x08
        return options.idm + serve(code: code, service: service, blocks: blocks, data: Array(apdu.data[listSize...]))
            + StatusWord.ok
    }

    private func framed(_ body: [UInt8]) -> [UInt8] { [UInt8(body.count + 1)] + body }
}
