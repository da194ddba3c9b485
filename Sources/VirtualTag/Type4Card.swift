import Foundation
import NDEF
public import SUNMessage

/// An emulated NFC Forum Type 4 tag: the NDEF Tag Application (mapping v1 or v2 AID), its capability container
/// file `E1 03` and an NDEF file (standard: 2-byte NLEN, or extended: 4-byte NLEN and the `06` File Control TLV).
public struct Type4Card: VirtualCard {
    /// Which NDEF application the card carries.
    public enum Mapping: Sendable, Hashable {
        /// Mapping 1.0: AID `D2 76 00 00 85 01 00`.
        case v1
        /// Mapping 2.0: AID `D2 76 00 00 85 01 01`.
        case v2
    }

    /// The card's shape.
    public struct Options: Sendable, Hashable {
        /// The application and its AID.
        public var mapping = Mapping.v2
        /// MLe: the most bytes one READ BINARY may ask for; a larger Le is refused with `67 00`.
        public var maxResponseLength = 0xFF
        /// MLc: the most bytes one UPDATE BINARY may carry.
        public var maxCommandLength = 0xFF
        /// The extended NDEF file (mapping 3.0 style): 4-byte NLEN and the `06 08` File Control TLV.
        public var isExtendedFile = false
        /// The NDEF file identifier.
        public var fileID: [UInt8] = [0xE1, 0x04]
        /// The NDEF file's size; `nil` for the message plus NLEN, at least 256 bytes.
        public var fileSize: Int?
        /// Write access `FF` (never) in the File Control TLV; writes are refused.
        public var isReadOnly = false
        /// The UID answered to `FF CA 00 00 00`.
        public var uid: [UInt8] = [0x04, 0x52, 0x61, 0x7A, 0x3C, 0x69, 0x80]
        /// Random ID (an NTAG 424 DNA set so, a phone emulating a card): `FF CA 00 00 00` answers a fresh 4-byte UID
        /// starting `08` (ISO/IEC 14443-3's random UID) each time; the SUN message keeps naming ``uid``.
        public var randomID = false
        /// NTAG 424 DNA's Secure Dynamic Messaging: a fresh SUN message mirrored into the NDEF file on every read
        /// (``Type4Card/sun(uri:uid:metaReadKey:fileReadKey:counter:fileData:macInput:randomID:)`` sets it up); nil: a plain file.
        public var sdm: SDMMirror?

        /// Default options: mapping v2, MLe 255, standard file `E1 04`.
        public init() {}
    }

    /// Where an NTAG 424 DNA mirrors its SUN message in the NDEF file, and with which keys (AES mode, NXP
    /// AN12196): the encrypted PICCData (32 hex digits), the encrypted file data if any, and the MAC (16 hex
    /// digits) over the text from SDMMACInputOffset to the MAC.
    public struct SDMMirror: Sendable, Hashable {
        /// K_SDMMetaRead.
        public var metaReadKey: [UInt8]
        /// K_SDMFileRead.
        public var fileReadKey: [UInt8]
        /// SDMReadCtr: the next read mirrors one more.
        public var counter: UInt32
        /// The offset of the PICCData's hex digits in the NDEF file.
        public var piccDataOffset: Int
        /// The offset of the MAC's hex digits.
        public var macOffset: Int
        /// The offset of the encrypted file data's hex digits, and the file data it encrypts (a multiple of 16
        /// bytes), if any.
        public var encDataOffset: Int?
        public var fileData: [UInt8]?
        /// Where the MAC's input starts (SDMMACInputOffset); nil: at the encrypted file data, or empty input.
        public var macInputOffset: Int?
    }

    private enum Selection: Sendable, Hashable {
        case none, application, capabilityContainer, ndefFile
    }

    let options: Options
    /// The capability container file.
    public let capabilityContainer: [UInt8]
    /// The NDEF file: NLEN then the message, zero-padded to the file size.
    public private(set) var ndefFile: [UInt8]
    private var selection = Selection.none
    /// SDM: the NDEF file was selected and not read since: the next read mirrors a new message.
    private var mirrorPending = false
    /// SDM: the read counter now.
    public private(set) var sdmCounter: UInt32 = 0
    /// The native NTAG 424 DNA commands and state (keys, file settings, authentication), for a card made with
    /// ``ntag424(message:uid:)``; nil for other Type 4 cards.
    public internal(set) var chip: NTAG424Chip?

    /// The ATR of an ISO 14443-4 card as a contactless reader builds it (one historical byte, `80`).
    public var atr: [UInt8] { ATR.contactless(historicalBytes: [0x80]) }

    /// Builds a card holding `message`.
    /// - Parameters:
    ///   - message: the NDEF message bytes; empty gives NLEN 0.
    ///   - options: the card's shape.
    /// - Throws: ``VirtualTagError`` when the message does not fit or an option is out of range.
    public init(message: [UInt8], options: Options = Options()) throws(VirtualTagError) {
        let name = "type4"
        guard (0x0F...0xFFFF).contains(options.maxResponseLength) else {
            throw .invalidOption(tag: name, option: "maxResponseLength", reason: "must be 15 to 65535")
        }
        guard (0x01...0xFFFF).contains(options.maxCommandLength) else {
            throw .invalidOption(tag: name, option: "maxCommandLength", reason: "must be 1 to 65535")
        }
        guard options.fileID.count == 2, options.fileID != [0xE1, 0x03] else {
            throw .invalidOption(tag: name, option: "fileID", reason: "must be 2 bytes other than E1 03")
        }
        let nlenSize = options.isExtendedFile ? 4 : 2
        let size = options.fileSize ?? Swift.max(256, nlenSize + message.count)
        // READ BINARY addresses offsets up to 0x7FFF.
        guard size <= 0x7FFF else {
            throw .invalidOption(tag: name, option: "fileSize", reason: "must be at most 32767")
        }
        guard nlenSize + message.count <= size else {
            throw .messageTooLarge(tag: name, size: message.count, capacity: size - nlenSize)
        }
        self.options = options
        var nlen = withUnsafeBytes(of: UInt32(message.count).bigEndian, Array.init)
        nlen.removeFirst(4 - nlenSize)
        ndefFile = nlen + message + [UInt8](repeating: 0, count: size - nlenSize - message.count)
        capabilityContainer = Self.capabilityContainer(options: options, fileSize: size)
        sdmCounter = options.sdm?.counter ?? 0
    }

    /// An NTAG 424 DNA holding `uri` with a SUN message appended as query items `p` (PICCData), `e` (encrypted
    /// file data, when `fileData` is given) and `m` (MAC), mirrored afresh, with its counter one higher, on every
    /// read of the NDEF file, as the real tag does.
    /// - Parameters:
    ///   - uri: the URI before the SUN items.
    ///   - uid: the 7-byte UID.
    ///   - metaReadKey: K_SDMMetaRead (16 bytes).
    ///   - fileReadKey: K_SDMFileRead (16 bytes).
    ///   - counter: SDMReadCtr before the first read.
    ///   - fileData: the file data to mirror encrypted (a multiple of 16 bytes), if any.
    ///   - macInput: what the MAC covers: the whole URL (as `tagrouter write --sun` provisions a tag), the text
    ///     from the file data on (AN12196's layout with file data), or nothing (AN12196's example, boltcards).
    ///   - randomID: the reader sees a fresh random UID on every read (``Options/randomID``).
    /// - Returns: the card.
    /// - Throws: ``VirtualTagError`` when a key, the UID or the file data has the wrong length, or `macInput` is
    ///   `fileData` without file data.
    public static func sun(
        uri: String, uid: [UInt8], metaReadKey: [UInt8], fileReadKey: [UInt8], counter: UInt32 = 0,
        fileData: [UInt8]? = nil, macInput: SUNMACInput = .url, randomID: Bool = false
    ) throws(VirtualTagError) -> Type4Card {
        let name = "ntag424"
        guard uid.count == 7 else { throw .invalidOption(tag: name, option: "uid", reason: "must be 7 bytes") }
        guard metaReadKey.count == 16, fileReadKey.count == 16 else {
            throw .invalidOption(tag: name, option: "key", reason: "must be 16 bytes")
        }
        if let fileData, fileData.isEmpty || fileData.count % 16 != 0 {
            throw .invalidOption(tag: name, option: "fileData", reason: "must be a multiple of 16 bytes")
        }
        let picc = String(repeating: "0", count: 32)
        let enc = fileData.map { String(repeating: "0", count: $0.count * 2) }
        let full =
            uri + (uri.contains("?") ? "&" : "?") + "p=" + picc + (enc.map { "&e=" + $0 } ?? "") + "&m="
            + String(repeating: "0", count: 16)
        // A URI record with no abbreviation: the URI's bytes follow the record header and the prefix code.
        let payload = [UInt8(0)] + Array(full.utf8)
        guard payload.count < 256 else { throw .invalidOption(tag: name, option: "uri", reason: "is too long") }
        let message: [UInt8] = [0xD1, 0x01, UInt8(payload.count), UInt8(ascii: "U")] + payload
        let uriStart = 2 + 4 + 1
        func offset(after marker: String) -> Int {
            uriStart + full.utf8.count
                - (full.range(of: marker, options: .backwards).map {
                    full[$0.upperBound...].utf8.count
                } ?? 0)
        }
        let macOffset = offset(after: "&m=")
        let encDataOffset = enc == nil ? nil : offset(after: "&e=")
        let macInputOffset: Int
        switch macInput {
        case .url: macInputOffset = uriStart
        case .fileData:
            guard let encDataOffset else {
                throw .invalidOption(tag: name, option: "macInput", reason: "fileData needs file data")
            }
            macInputOffset = encDataOffset
        case .none: macInputOffset = macOffset
        }
        var options = Options()
        options.uid = uid
        options.randomID = randomID
        options.sdm = SDMMirror(
            metaReadKey: metaReadKey, fileReadKey: fileReadKey, counter: counter, piccDataOffset: offset(after: "p="),
            macOffset: macOffset, encDataOffset: encDataOffset, fileData: fileData, macInputOffset: macInputOffset)
        return try Type4Card(message: message, options: options)
    }

    /// An NTAG 424 DNA as it leaves the factory, holding `message`: all five keys zero, the 256-byte NDEF file
    /// free to read and write, SDM off. `tagrouter write --sun` provisions it with the native commands that
    /// ``NTAG424Chip`` answers; once SDM is on, every read of the NDEF file mirrors a fresh SUN message with the
    /// keys the chip holds.
    /// - Parameters:
    ///   - message: the NDEF message bytes.
    ///   - uid: the 7-byte UID.
    /// - Returns: the card.
    /// - Throws: ``VirtualTagError`` when the message does not fit or the UID is not 7 bytes.
    public static func ntag424(message: [UInt8] = [], uid: [UInt8] = Options().uid)
        throws(VirtualTagError) -> Type4Card
    {
        guard uid.count == 7 else { throw .invalidOption(tag: "ntag424", option: "uid", reason: "must be 7 bytes") }
        var options = Options()
        options.uid = uid
        options.fileSize = NTAG424Chip.fileSize
        var card = try Type4Card(message: message, options: options)
        card.chip = NTAG424Chip()
        return card
    }

    /// What SDM mirrors now: the chip's settings and keys for an NTAG 424 DNA made with ``ntag424(message:uid:)``,
    /// the fixed mirror of ``sun(uri:uid:metaReadKey:fileReadKey:counter:fileData:macInput:randomID:)`` otherwise.
    private var activeMirror: SDMMirror? {
        guard let chip else { return options.sdm }
        guard chip.fileOption & 0x40 != 0, let settings = chip.sdm else { return nil }
        return SDMMirror(
            metaReadKey: chip.keys[settings.metaReadKey], fileReadKey: chip.keys[settings.fileReadKey],
            counter: sdmCounter, piccDataOffset: settings.piccDataOffset, macOffset: settings.macOffset,
            macInputOffset: settings.macInputOffset)
    }

    /// Mirrors a new SUN message into the NDEF file: the counter one higher, fresh padding.
    private mutating func mirror(_ sdm: SDMMirror) {
        sdmCounter &+= 1
        var random = SystemRandomNumberGenerator()
        let padding = (0..<5).map { _ in UInt8.random(in: 0...255, using: &random) }
        func write(_ bytes: [UInt8], at offset: Int) {
            let text = Array(HexText.string(bytes, uppercase: true).utf8)
            ndefFile.replaceSubrange(offset..<(offset + text.count), with: text)
        }
        guard
            let picc = try? SUNCrypto.piccData(
                uid: options.uid, counter: sdmCounter, padding: padding, metaReadKey: sdm.metaReadKey)
        else { return }
        write(picc, at: sdm.piccDataOffset)
        if let encOffset = sdm.encDataOffset, let fileData = sdm.fileData,
            let encrypted = try? SUNCrypto.fileData(
                encrypting: fileData, fileReadKey: sdm.fileReadKey, uid: options.uid, counter: sdmCounter)
        {
            write(encrypted, at: encOffset)
        }
        let inputStart = sdm.macInputOffset ?? sdm.encDataOffset ?? sdm.macOffset
        let macInput = Array(ndefFile[inputStart..<sdm.macOffset])
        if let mac = try? SUNCrypto.mac(
            fileReadKey: sdm.fileReadKey, uid: options.uid, counter: sdmCounter, input: macInput)
        {
            write(mac, at: sdm.macOffset)
        }
    }

    static func capabilityContainer(options: Options, fileSize: Int) -> [UInt8] {
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let write: UInt8 = options.isReadOnly ? 0xFF : 0x00
        let version: UInt8 = options.isExtendedFile ? 0x30 : (options.mapping == .v1 ? 0x10 : 0x20)
        let control: [UInt8] =
            options.isExtendedFile
            ? [0x06, 0x08] + options.fileID + be16(fileSize >> 16) + be16(fileSize) + [0x00, write]
            : [0x04, 0x06] + options.fileID + be16(fileSize) + [0x00, write]
        return be16(7 + control.count) + [version] + be16(options.maxResponseLength)
            + be16(options.maxCommandLength) + control
    }

    /// The AID of the NDEF Tag Application for a mapping.
    public static func applicationID(_ mapping: Mapping) -> [UInt8] {
        [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, mapping == .v1 ? 0x00 : 0x01]
    }

    /// Forgets the selected application and file.
    public mutating func powerCycled() {
        selection = .none
        chip?.reset()
    }

    /// Answers one command APDU.
    public mutating func respond(to command: [UInt8]) -> [UInt8] {
        guard let apdu = CommandAPDU(command) else { return StatusWord.wrongLength }
        switch (apdu.cla, apdu.ins) {
        case (0xFF, 0xCA):
            guard apdu.p1 == 0x00 else { return StatusWord.functionNotSupported }
            guard options.randomID else { return options.uid + StatusWord.ok }
            return [0x08] + (0..<3).map { _ in UInt8.random(in: 0...255) } + StatusWord.ok
        case (0x00, 0xA4):
            return select(apdu)
        case (0x00, 0xB0):
            return readBinary(apdu)
        case (0x00, 0xD6):
            return updateBinary(apdu)
        case (0x90, _) where chip != nil:
            var native = chip!
            let answer = native.respond(to: apdu, uid: options.uid, file: &ndefFile)
            chip = native
            return answer
        case (0x00, _), (0xFF, _):
            return StatusWord.insNotSupported
        default:
            return StatusWord.claNotSupported
        }
    }

    private mutating func select(_ apdu: CommandAPDU) -> [UInt8] {
        switch (apdu.p1, apdu.p2) {
        case (0x04, 0x00), (0x04, 0x0C):
            selection = apdu.data == Self.applicationID(options.mapping) ? .application : .none
            return selection == .application ? StatusWord.ok : StatusWord.notFound
        case (0x00, 0x0C), (0x00, 0x00):
            guard selection != .none else { return StatusWord.notFound }
            if apdu.data == [0xE1, 0x03] {
                selection = .capabilityContainer
            } else if apdu.data == options.fileID {
                selection = .ndefFile
                mirrorPending = activeMirror != nil
            } else {
                return StatusWord.notFound
            }
            return StatusWord.ok
        default:
            return StatusWord.wrongParameters
        }
    }

    private mutating func readBinary(_ apdu: CommandAPDU) -> [UInt8] {
        if selection == .ndefFile, mirrorPending, let sdm = activeMirror {
            mirrorPending = false
            mirror(sdm)
        }
        let file: [UInt8]
        switch selection {
        case .capabilityContainer: file = capabilityContainer
        case .ndefFile: file = ndefFile
        default: return StatusWord.noCurrentFile
        }
        guard apdu.p1 & 0x80 == 0 else { return StatusWord.wrongParameters }
        let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
        let length = apdu.le ?? 256
        guard length <= options.maxResponseLength else { return StatusWord.wrongLength }
        guard offset < file.count else { return StatusWord.wrongParameters }
        let end = Swift.min(offset + length, file.count)
        return Array(file[offset..<end]) + (end - offset < length ? StatusWord.endOfFile : StatusWord.ok)
    }

    private mutating func updateBinary(_ apdu: CommandAPDU) -> [UInt8] {
        guard selection == .ndefFile else { return StatusWord.noCurrentFile }
        guard !options.isReadOnly else { return StatusWord.failed }
        // An NTAG 424 DNA whose NDEF file is written only with a key refuses the unauthenticated ISO command.
        if let chip, !chip.isFreeToWrite { return StatusWord.securityNotSatisfied }
        // P1 bit 8 would name a short file identifier, which this card does not have.
        guard apdu.p1 & 0x80 == 0 else { return StatusWord.wrongParameters }
        let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
        guard apdu.data.count <= options.maxCommandLength, offset + apdu.data.count <= ndefFile.count else {
            return StatusWord.wrongLength
        }
        ndefFile.replaceSubrange(offset..<(offset + apdu.data.count), with: apdu.data)
        return StatusWord.ok
    }
}
