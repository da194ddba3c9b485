import SUNMessage

/// The native side of an emulated NTAG 424 DNA (data sheet NT4H2421Gx, "Command set"; AN12196): five AES
/// application keys with their versions, the NDEF file's settings (communication mode, access rights, Secure
/// Dynamic Messaging) and the authentication state. ``Type4Card`` answers the ISO commands and hands the native
/// ones (CLA `90`) here. What is emulated is what `tagrouter write --sun` and a phone use: GetVersion,
/// AuthenticateEV2First, WriteData, GetFileSettings, ChangeFileSettings and ChangeKey on the NDEF file (`02`),
/// with SDM mirroring the encrypted PICCData and the MAC. Plain UID and counter mirroring, encrypted file data,
/// the read counter limit, TagTamper and LRP are answered with a parameter error, as a tag configured otherwise
/// would be by a tool that does not know them.
public struct NTAG424Chip: Sendable {
    /// Where SDM mirrors, as ChangeFileSettings set it.
    public struct SDMSettings: Sendable, Hashable {
        /// The key that encrypts PICCData (SDMMetaRead, 0 to 4).
        public var metaReadKey: Int
        /// The key the MAC's session key comes from (SDMFileRead, 0 to 4).
        public var fileReadKey: Int
        /// SDMCtrRet: `E` free, `F` never, or a key.
        public var counterRetrievalKey: Int
        /// Where the PICCData's 32 hex digits go.
        public var piccDataOffset: Int
        /// Where the MAC's input starts.
        public var macInputOffset: Int
        /// Where the MAC's 16 hex digits go.
        public var macOffset: Int
    }

    /// The application keys 0 (AppMasterKey) to 4.
    public internal(set) var keys: [[UInt8]] = Array(repeating: [UInt8](repeating: 0, count: 16), count: 5)
    /// Their versions (`00` from the factory).
    public internal(set) var keyVersions: [UInt8] = Array(repeating: 0, count: 5)
    /// File `02`'s FileOption: bit 6 SDM enabled, bits 1–0 the communication mode.
    public internal(set) var fileOption: UInt8 = 0x00
    /// File `02`'s access rights: Read&Write and Change, then Read and Write (`E` free, `F` never, 0–4 a key).
    public internal(set) var accessRights: [UInt8] = [0xE0, 0xEE]
    /// File `02`'s SDM settings, when SDM is enabled.
    public internal(set) var sdm: SDMSettings?
    /// How many commands failed authentication (AuthenticateEV2First with a wrong key).
    public internal(set) var failedAuthentications = 0

    var session: EV2Session?
    private var pendingAuthentication: (keyNumber: UInt8, rndB: [UInt8])?
    private var versionFrame: Int?

    /// A chip as it leaves the factory: all keys zero, version 0, the NDEF file free to read and write.
    public init() {}

    /// The NDEF file's size.
    static let fileSize = 256

    static let ok: [UInt8] = [0x91, 0x00]
    static let additionalFrame: [UInt8] = [0x91, 0xAF]
    static let authenticationError: [UInt8] = [0x91, 0xAE]
    static let permissionDenied: [UInt8] = [0x91, 0x9D]
    static let integrityError: [UInt8] = [0x91, 0x1E]
    static let lengthError: [UInt8] = [0x91, 0x7E]
    static let noSuchKey: [UInt8] = [0x91, 0x40]
    static let parameterError: [UInt8] = [0x91, 0x9E]
    static let fileNotFound: [UInt8] = [0x91, 0xF0]
    static let boundaryError: [UInt8] = [0x91, 0xBE]
    static let illegalCommand: [UInt8] = [0x91, 0x1C]

    static func nibble(_ byte: UInt8, high: Bool) -> Int { Int(high ? byte >> 4 : byte & 0x0F) }

    /// Who may write file `02`: the Write right, or the Read&Write right.
    var writeRights: [Int] { [Self.nibble(accessRights[1], high: false), Self.nibble(accessRights[0], high: true)] }

    /// Whether ISO UPDATE BINARY, which carries no authentication, may write the NDEF file.
    var isFreeToWrite: Bool { writeRights.contains(0xE) }

    /// Forgets the session and any half-done command, as a power cycle does.
    mutating func reset() {
        session = nil
        pendingAuthentication = nil
        versionFrame = nil
    }

    /// Answers one native command.
    /// - Parameters:
    ///   - apdu: the command.
    ///   - uid: the tag's UID.
    ///   - file: the NDEF file, for WriteData.
    /// - Returns: the answer with its status word.
    mutating func respond(to apdu: CommandAPDU, uid: [UInt8], file: inout [UInt8]) -> [UInt8] {
        if apdu.ins != 0xAF {
            pendingAuthentication = nil
            versionFrame = nil
        }
        let answer: [UInt8]
        switch apdu.ins {
        case 0x60: answer = getVersion()
        case 0xAF: answer = additional(apdu.data, uid: uid)
        case 0x71: answer = authenticate(apdu.data)
        case 0x8D: answer = writeData(apdu.data, file: &file)
        case 0xF5: answer = getFileSettings(apdu.data)
        case 0x5F: answer = changeFileSettings(apdu.data, fileSize: file.count)
        case 0xC4: answer = changeKey(apdu.data)
        default: answer = Self.illegalCommand
        }
        // An error ends the session (data sheet: the PICC returns to the not-authenticated state).
        if answer.suffix(2) != Self.ok, answer.suffix(2) != Self.additionalFrame { session = nil }
        return answer
    }

    private mutating func getVersion() -> [UInt8] {
        // Vendor NXP, type 04 (NTAG), subtype 02 (50 pF), version 3.0, 256 bytes, ISO 14443-2 and -3.
        session = nil
        versionFrame = 1
        return [0x04, 0x04, 0x02, 0x30, 0x00, 0x11, 0x05] + Self.additionalFrame
    }

    private mutating func additional(_ data: [UInt8], uid: [UInt8]) -> [UInt8] {
        if let frame = versionFrame {
            if frame == 1 {
                versionFrame = 2
                return [0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x05] + Self.additionalFrame
            }
            versionFrame = nil
            // UID, batch number, fabrication key, calendar week and year of production.
            return uid + [0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x26] + Self.ok
        }
        guard let (keyNumber, rndB) = pendingAuthentication else { return Self.illegalCommand }
        pendingAuthentication = nil
        var random = SystemRandomNumberGenerator()
        let transactionID = (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
        guard
            let (response, session) = EV2Authentication.accept(
                data, key: keys[Int(keyNumber)], rndB: rndB, transactionID: transactionID, keyNumber: keyNumber)
        else {
            failedAuthentications += 1
            return Self.authenticationError
        }
        self.session = session
        return response + Self.ok
    }

    private mutating func authenticate(_ data: [UInt8]) -> [UInt8] {
        session = nil
        guard data.count >= 2 else { return Self.lengthError }
        guard data[0] < 5 else { return Self.noSuchKey }
        var random = SystemRandomNumberGenerator()
        let rndB = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        guard let challenge = try? EV2Authentication.challenge(key: keys[Int(data[0])], rndB: rndB) else {
            return Self.authenticationError
        }
        pendingAuthentication = (data[0], rndB)
        return challenge + Self.additionalFrame
    }

    /// Opens a command that needs the session with `key` (or free access, `E`), in `mode`.
    private func opened(_ code: UInt8, _ body: [UInt8], headerLength: Int, rights: [Int], mode: CommMode) -> (
        header: [UInt8], data: [UInt8]
    )? {
        if rights.contains(0xE) {
            guard body.count >= headerLength else { return nil }
            return (Array(body.prefix(headerLength)), Array(body.dropFirst(headerLength)))
        }
        guard let session, rights.contains(Int(session.keyNumber)) else { return nil }
        return session.open(code, headerLength: headerLength, body: body, mode: mode)
    }

    private mutating func finish(_ data: [UInt8] = [], mode: CommMode) -> [UInt8] {
        guard session != nil else { return data + Self.ok }
        do {
            return try session!.answer(data, mode: mode) + Self.ok
        } catch {
            // The chip cannot protect its answer: the command fails, as an integrity error.
            return Self.integrityError
        }
    }

    private mutating func writeData(_ body: [UInt8], file: inout [UInt8]) -> [UInt8] {
        guard body.first == 0x02 else { return Self.fileNotFound }
        let mode: CommMode = writeRights.contains(0xE) ? .plain : CommMode(rawValue: fileOption & 0x03) ?? .plain
        guard let (header, data) = opened(0x8D, body, headerLength: 7, rights: writeRights, mode: mode) else {
            return session == nil ? Self.permissionDenied : Self.integrityError
        }
        let offset = Int(header[1]) | Int(header[2]) << 8 | Int(header[3]) << 16
        let length = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16
        guard length == data.count else { return Self.lengthError }
        guard offset + length <= file.count else { return Self.boundaryError }
        file.replaceSubrange(offset..<(offset + length), with: data)
        return finish(mode: mode)
    }

    private mutating func getFileSettings(_ body: [UInt8]) -> [UInt8] {
        guard body.first == 0x02 else { return Self.fileNotFound }
        var settings: [UInt8] = [0x00, fileOption] + accessRights + [UInt8(Self.fileSize & 0xFF), 0x01, 0x00]
        if let sdm {
            func le24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16)] }
            settings += [0xC1, UInt8(0xF0 | sdm.counterRetrievalKey), UInt8(sdm.metaReadKey << 4 | sdm.fileReadKey)]
            settings += le24(sdm.piccDataOffset) + le24(sdm.macInputOffset) + le24(sdm.macOffset)
        }
        if session != nil {
            guard session!.open(0xF5, headerLength: 1, body: body, mode: .mac) != nil else {
                return Self.integrityError
            }
        }
        return finish(settings, mode: .mac)
    }

    private mutating func changeFileSettings(_ body: [UInt8], fileSize: Int) -> [UInt8] {
        guard let session else { return Self.permissionDenied }
        guard let (header, data) = session.open(0x5F, headerLength: 1, body: body, mode: .full) else {
            return Self.integrityError
        }
        guard header == [0x02] else { return Self.fileNotFound }
        guard Int(session.keyNumber) == Self.nibble(accessRights[0], high: false) else { return Self.permissionDenied }
        guard data.count >= 3 else { return Self.lengthError }
        let option = data[0]
        guard option & 0x40 != 0 else {
            guard data.count == 3 else { return Self.lengthError }
            (fileOption, accessRights, sdm) = (option, Array(data[1..<3]), nil)
            return finish(mode: .full)
        }
        // SDM: UID and counter mirrored (encrypted in PICCData), ASCII, a MAC; nothing else is emulated.
        guard data.count == 15, data[3] == 0xC1 else { return Self.parameterError }
        let counterKey = Self.nibble(data[4], high: false)
        let metaKey = Self.nibble(data[5], high: true)
        let fileKey = Self.nibble(data[5], high: false)
        guard metaKey < 5, fileKey < 5 else { return Self.parameterError }
        func le24(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 }
        let settings = SDMSettings(
            metaReadKey: metaKey, fileReadKey: fileKey, counterRetrievalKey: counterKey, piccDataOffset: le24(6),
            macInputOffset: le24(9), macOffset: le24(12))
        guard settings.piccDataOffset + 32 <= fileSize, settings.macOffset + 16 <= fileSize,
            settings.macInputOffset <= settings.macOffset,
            settings.piccDataOffset + 32 <= settings.macOffset || settings.macOffset + 16 <= settings.piccDataOffset
        else { return Self.parameterError }
        (fileOption, accessRights, sdm) = (option, Array(data[1..<3]), settings)
        return finish(mode: .full)
    }

    private mutating func changeKey(_ body: [UInt8]) -> [UInt8] {
        guard let session else { return Self.permissionDenied }
        guard let (header, data) = session.open(0xC4, headerLength: 1, body: body, mode: .full) else {
            return Self.integrityError
        }
        guard session.keyNumber == 0 else { return Self.permissionDenied }
        guard header[0] < 5 else { return Self.noSuchKey }
        let number = Int(header[0])
        guard let (key, version) = session.readChangeKeyData(data, keyNumber: header[0], oldKey: keys[number]) else {
            return Self.integrityError
        }
        keys[number] = key
        keyVersions[number] = version
        if header[0] == session.keyNumber {
            // The session's own key changed: the session ends, and the answer carries no MAC.
            self.session = nil
            return Self.ok
        }
        return finish(mode: .full)
    }
}
