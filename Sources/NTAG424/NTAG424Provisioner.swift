import NDEF
public import NFCTag
import SUNMessage

/// Provisions an NTAG 424 DNA for Secure Unique NFC (`tagrouter write --sun`; docs/tags.md, "Provisioning an
/// NTAG 424 DNA"): the URL template in the NDEF file, SDM switched on so that every read mirrors the encrypted
/// PICCData (key 1, SDMMetaRead) and the MAC (key 2, SDMFileRead), and the keys changed, with AES
/// AuthenticateEV2First and EV2 secure messaging (NXP AN12196).
///
/// Safe to interrupt: before changing anything it finds out, by authenticating, whether each key is still the
/// current one or already the new one, and refuses, having changed nothing, a tag holding any other key. Every
/// command is atomic on the tag and the order is chosen so that a tag taken away at any moment is finished by
/// running the same provisioning again: the message is written NLEN-first, the file settings and keys 1 and 2
/// come next, and the AppMasterKey (key 0) last.
public struct NTAG424Provisioner: Sendable {
    /// The keys: what the tag holds now, and what it is to hold.
    public struct Keys: Sendable {
        /// The AppMasterKey (key 0) to set.
        public var master: [UInt8]
        /// K_SDMMetaRead (key 1) to set.
        public var metaRead: [UInt8]
        /// K_SDMFileRead (key 2) to set, from the tag's UID (a key diversified per tag, or the same for all).
        public var fileRead: @Sendable ([UInt8]) throws -> [UInt8]
        /// Keys 0, 1 and 2 as the tag holds them now (all zero from the factory).
        public var current: [[UInt8]]

        /// Creates the keys.
        /// - Parameters:
        ///   - master: the new AppMasterKey.
        ///   - metaRead: the new K_SDMMetaRead.
        ///   - fileRead: the new K_SDMFileRead for a UID.
        ///   - current: keys 0, 1 and 2 now; nil: the factory's zero keys.
        public init(
            master: [UInt8], metaRead: [UInt8], fileRead: @escaping @Sendable ([UInt8]) throws -> [UInt8],
            current: [[UInt8]]? = nil
        ) {
            self.master = master
            self.metaRead = metaRead
            self.fileRead = fileRead
            self.current = current ?? Array(repeating: Self.factory, count: 3)
        }

        /// The key every NTAG 424 DNA leaves the factory with: 16 zero bytes.
        public static let factory = [UInt8](repeating: 0, count: 16)
    }

    /// The URL template: the NDEF message holding the URL with room for the SUN items, and where in the NDEF
    /// file the tag mirrors them.
    public struct Template: Sendable, Hashable {
        /// The URL as written, zeros where the tag mirrors.
        public let uri: String
        /// The NDEF message.
        public let message: [UInt8]
        /// The offset in the NDEF file of the PICCData's 32 hex digits.
        public let piccDataOffset: Int
        /// The offset in the NDEF file of the MAC's 16 hex digits.
        public let macOffset: Int
        /// The offset in the NDEF file of the URL's first stored character (the byte after the URI record's
        /// identifier code): the MAC covers the URL from there up to its own first digit (SDMMACInputOffset).
        public let macInputOffset: Int

        /// Builds the template: `uri` with the query items `piccItem=<32 zeros>` and `macItem=<16 zeros>` appended.
        /// - Parameters:
        ///   - uri: the URL before the SUN items.
        ///   - piccItem: the PICCData's query item (`p`, as in the rule's `piccData: p`).
        ///   - macItem: the MAC's query item (`m`).
        /// - Throws: `NFCTagError.messageTooLarge` when the message does not fit the 256-byte NDEF file,
        ///   `.unsupportedCard` for an empty or ill-formed item name, or a URL with a fragment.
        public init(uri: String, piccItem: String = "p", macItem: String = "m") throws(NFCTagError) {
            let names = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
            guard !piccItem.isEmpty, !macItem.isEmpty, piccItem != macItem,
                (piccItem + macItem).allSatisfy(names.contains)
            else {
                throw NFCTagError(
                    .unsupportedCard,
                    "the SUN query items must be two different names of letters, digits, '-', '_', '.'")
            }
            guard !uri.contains("#") else {
                throw NFCTagError(
                    .unsupportedCard, "the URL has a fragment (#…); the SUN items end the URL, so give it without one")
            }
            let picc = piccItem + "=" + String(repeating: "0", count: 32)
            let mac = macItem + "=" + String(repeating: "0", count: 16)
            let full = uri + (uri.contains("?") ? "&" : "?") + picc + "&" + mac
            let message: [UInt8]
            let record = URIRecord(uri: full).record
            do {
                message = try NDEFMessage(records: [record]).encoded()
            } catch {
                throw NFCTagError(.messageTooLarge, "the URL cannot be encoded: \(error)")
            }
            guard message.count <= NTAG424Provisioner.fileSize - 2 else {
                throw NFCTagError(
                    .messageTooLarge,
                    "the URL with its SUN items makes a \(message.count)-byte message; an NTAG 424 DNA's NDEF file holds at most \(NTAG424Provisioner.fileSize - 2)"
                )
            }
            // The items end the URL, so their digits end the message: the MAC's last, the PICCData's before "&m=".
            self.uri = full
            self.message = message
            macOffset = 2 + message.count - 16
            piccDataOffset = macOffset - 1 - (macItem.utf8.count + 1) - 32
            // The record is the message's only one and its payload ends the message: the identifier code, then
            // the URL's stored text.
            macInputOffset = 2 + message.count - (record.payload.count - 1)
        }
    }

    /// What a provisioning did, or (a dry run) would do.
    public struct Result: Sendable, Hashable {
        /// The tag's UID, from GetVersion.
        public var uid: [UInt8]
        /// The commands sent, each with what it found or did.
        public var sent: [String]
        /// A dry run: the commands that would follow; empty otherwise.
        public var planned: [String]
        /// The keys changed (0, 1, 2).
        public var keysChanged: [Int]
        /// The keys found to hold their new value already (an earlier run, complete or interrupted, set them).
        public var keysAlreadyNew: [Int]
        /// The read counter of the SUN message read back and verified; nil in a dry run.
        public var counter: UInt32?
    }

    /// The NDEF file's size on an NTAG 424 DNA.
    public static let fileSize = 256
    /// The key numbers: SDMMetaRead, SDMFileRead.
    public static let metaReadKeyNumber: UInt8 = 1
    public static let fileReadKeyNumber: UInt8 = 2
    /// The version given to every key set.
    public static let keyVersion: UInt8 = 0x01

    /// The reader used to read the tag back.
    public var reader = TagReader()

    /// Creates a provisioner.
    public init() {}

    /// Provisions the tag, reads it back and verifies the SUN message with the new keys; or, with `dryRun`,
    /// finds out the tag's state (selection, GetVersion, authentications, which change nothing) and lists the
    /// commands that would follow.
    /// - Parameters:
    ///   - template: the URL template.
    ///   - keys: the keys.
    ///   - atr: the card's ATR.
    ///   - channel: the channel to the card.
    ///   - dryRun: change nothing; list the commands.
    /// - Returns: what was done.
    /// - Throws: `NFCTagError`: `unsupportedCard` (not an NTAG 424 DNA), `authenticationFailed` (a key is
    ///   neither the current one nor the new one: nothing changed), `readOnly` (the NDEF file's settings need
    ///   another key), `tagRemoved`, `unexpectedStatus`, `unexpectedResponse` (a wrong MAC),
    ///   `verificationFailed`.
    public func provision(
        _ template: Template, keys: Keys, atr: [UInt8], channel: some CardChannel, dryRun: Bool = false
    ) async throws -> Result {
        var run = Run(channel: channel)
        let uid = try await run.identify()
        let fileReadKey: [UInt8]
        do {
            fileReadKey = try keys.fileRead(uid)
        } catch {
            throw NFCTagError(
                .authenticationFailed, "the SDMFileRead key for UID \(HexText.string(uid, uppercase: true)): \(error)")
        }
        let new = [keys.master, keys.metaRead, fileReadKey]
        // Which key each of keys 1, 2 and 0 holds; key 0 last, so that its session stays open.
        var holdsNew: [Int: Bool] = [:]
        for number in [1, 2, 0] {
            holdsNew[number] = try await run.probe(UInt8(number), current: keys.current[number], new: new[number])
        }
        let alreadyNew = [1, 2, 0].filter { holdsNew[$0] == true }
        guard var session = run.session else {
            throw NFCTagError(.unexpectedResponse, "no session after authenticating with key 0")
        }
        let (writeMode, settings) = try await run.fileSettings(&session)

        let settingsData = Self.sdmSettings(template)
        var plan: [(String, Operation)] = []
        plan.append(("WriteData file 02 offset 0: NLEN 0", .write(offset: 0, data: [0, 0])))
        var offset = 0
        while offset < template.message.count {
            let end = min(offset + 128, template.message.count)
            plan.append(
                (
                    "WriteData file 02 offset \(2 + offset): \(end - offset) bytes of the message",
                    .write(offset: 2 + offset, data: Array(template.message[offset..<end]))
                ))
            offset = end
        }
        let nlen = [UInt8(template.message.count >> 8), UInt8(template.message.count & 0xFF)]
        plan.append(("WriteData file 02 offset 0: NLEN \(template.message.count)", .write(offset: 0, data: nlen)))
        plan.append(
            (
                "ChangeFileSettings file 02: SDM on, PICCData at \(template.piccDataOffset) with key 1, MAC at "
                    + "\(template.macOffset) with key 2 over the URL from \(template.macInputOffset), read free, "
                    + "write and change with key 0",
                .settings(settingsData)
            ))
        var keysChanged: [Int] = []
        for (number, name) in [(1, "SDMMetaRead"), (2, "SDMFileRead"), (0, "AppMasterKey")]
        where holdsNew[number] == false && keys.current[number] != new[number] {
            plan.append(("ChangeKey \(number) (\(name)), version \(Self.keyVersion)", .key(UInt8(number))))
            keysChanged.append(number)
        }
        run.log.append("GetFileSettings file 02: \(settings)")
        if dryRun {
            return Result(
                uid: uid, sent: run.log, planned: plan.map(\.0), keysChanged: keysChanged, keysAlreadyNew: alreadyNew,
                counter: nil)
        }

        for (description, operation) in plan {
            switch operation {
            case .write(let offset, let data):
                let header = [0x02] + Self.le24(offset) + Self.le24(data.count)
                _ = try await run.send(0x8D, header: header, data: data, mode: writeMode, session: &session)
            case .settings(let data):
                _ = try await run.send(0x5F, header: [0x02], data: data, mode: .full, session: &session)
            case .key(let number):
                let data = session.changeKeyData(
                    keyNumber: number, newKey: new[Int(number)], oldKey: keys.current[Int(number)],
                    version: Self.keyVersion)
                // Changing the session's own key ends the session: its answer carries no MAC.
                _ = try await run.send(
                    0xC4, header: [number], data: data, mode: .full, session: &session, answerIsPlain: number == 0)
            }
            run.log.append(description)
        }
        let counter = try await verify(
            template, uid: uid, metaReadKey: keys.metaRead, fileReadKey: fileReadKey, atr: atr, channel: channel)
        run.log.append("read back: the SUN message is verified with the new keys, read counter \(counter)")
        return Result(
            uid: uid, sent: run.log, planned: [], keysChanged: keysChanged, keysAlreadyNew: alreadyNew, counter: counter
        )
    }

    private enum Operation {
        case write(offset: Int, data: [UInt8])
        case settings([UInt8])
        case key(UInt8)
    }

    /// ChangeFileSettings' data: SDM on in CommMode.Plain; read free, write, read&write and change with key 0;
    /// UID and read counter mirrored as encrypted PICCData (key 1), ASCII; counter retrieval never; the MAC with
    /// key 2 over the URL as stored, from its first character to the MAC (SDMMACInputOffset at the URL's start,
    /// not at the MAC as in AN12196's example, whose MAC proves nothing of the URL: docs/doors.md).
    static func sdmSettings(_ template: Template) -> [UInt8] {
        [0x40, 0x00, 0xE0, 0xC1, 0xFF, metaReadKeyNumber << 4 | fileReadKeyNumber] + le24(template.piccDataOffset)
            + le24(template.macInputOffset) + le24(template.macOffset)
    }

    static func le24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16)] }

    /// Reads the tag back as a phone would and verifies the SUN message with the new keys.
    private func verify(
        _ template: Template, uid: [UInt8], metaReadKey: [UInt8], fileReadKey: [UInt8], atr: [UInt8],
        channel: some CardChannel
    ) async throws -> UInt32 {
        let reading = try await reader.read(atr: atr, channel: channel)
        guard case .message(let message) = reading.content, message.count == template.message.count else {
            throw NFCTagError(.verificationFailed, "the tag read back does not hold the URL template")
        }
        func bytes(at fileOffset: Int, count: Int) -> [UInt8]? {
            HexText.bytes(String(decoding: message[(fileOffset - 2)..<(fileOffset - 2 + 2 * count)], as: UTF8.self))
        }
        guard let picc = bytes(at: template.piccDataOffset, count: 16),
            let mac = bytes(at: template.macOffset, count: 8)
        else { throw NFCTagError(.verificationFailed, "the tag read back mirrors no SUN message") }
        let macInput = Array(message[(template.macInputOffset - 2)..<(template.macOffset - 2)])
        let verdict = SUNCrypto.verify(
            piccData: picc, mac: mac, encData: nil, macInput: macInput, metaReadKey: metaReadKey,
            fileReadKey: fileReadKey)
        guard case .verified(let sun) = verdict, sun.uid == uid else {
            throw NFCTagError(
                .verificationFailed, "the SUN message read back does not verify with the new keys (\(verdict))")
        }
        return sun.counter
    }
}

/// One provisioning's exchange with the tag: the log of commands and the session.
private struct Run<Channel: CardChannel> {
    let channel: Channel
    var log: [String] = []
    var session: EV2Session?

    init(channel: Channel) {
        self.channel = channel
    }

    /// Selects the NDEF application and checks with GetVersion that the card is an NTAG 424 DNA.
    /// - Returns: the UID.
    mutating func identify() async throws -> [UInt8] {
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        guard try await channel.exchange(select).isSuccess else {
            throw NFCTagError(.unsupportedCard, "the card has no NDEF application: not an NTAG 424 DNA")
        }
        log.append("SELECT application D2760000850101")
        var frames: [[UInt8]] = []
        var command: [UInt8] = [0x90, 0x60, 0x00, 0x00, 0x00]
        while frames.count < 3 {
            let response = try await channel.exchange(command)
            guard response.status == (frames.count < 2 ? 0x91AF : 0x9100) else {
                throw NFCTagError(
                    .unsupportedCard,
                    "GetVersion answered status \(CommandName.hex(response.bytes.suffix(2), separator: " ")): not an NTAG 424 DNA"
                )
            }
            frames.append(Array(response.data))
            command = [0x90, 0xAF, 0x00, 0x00, 0x00]
        }
        guard frames[0].count == 7, frames[0][0] == 0x04, frames[0][1] == 0x04, frames[2].count >= 7 else {
            throw NFCTagError(
                .unsupportedCard,
                "GetVersion names vendor \(frames[0].first.map(CommandName.hex) ?? "?") type \(frames[0].dropFirst().first.map(CommandName.hex) ?? "?"): not an NTAG 424 DNA"
            )
        }
        let uid = Array(frames[2].prefix(7))
        log.append("GetVersion: NTAG 424 DNA, UID \(HexText.string(uid, uppercase: true))")
        return uid
    }

    /// Finds out whether key `number` is the current or the new one by authenticating; the last session opened
    /// stays in `session`.
    /// - Returns: whether it is the new one (and differs from the current one).
    /// - Throws: `NFCTagError.authenticationFailed` when it is neither.
    mutating func probe(_ number: UInt8, current: [UInt8], new: [UInt8]) async throws -> Bool {
        if try await authenticate(number, key: current) {
            log.append("AuthenticateEV2First key \(number): holds the current key")
            return false
        }
        if new != current, try await authenticate(number, key: new) {
            log.append("AuthenticateEV2First key \(number): holds the new key already (an earlier run set it)")
            return true
        }
        throw NFCTagError(
            .authenticationFailed,
            "key \(number) of the tag is neither the current key given nor the new one; nothing was changed")
    }

    private mutating func authenticate(_ number: UInt8, key: [UInt8]) async throws -> Bool {
        session = nil
        let first = EV2Authentication.firstCommand(keyNumber: number)
        let challenge = try await channel.exchange(first)
        guard challenge.status == 0x91AF else { throw CommandName.unexpectedStatus(first, challenge) }
        var random = SystemRandomNumberGenerator()
        let rndA = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        do {
            let (second, rndB) = try EV2Authentication.secondCommand(
                encryptedRndB: Array(challenge.data), key: key, rndA: rndA)
            let answer = try await channel.exchange(second)
            if answer.status == 0x91AE { return false }
            guard answer.status == 0x9100 else { throw CommandName.unexpectedStatus(second, answer) }
            session = try EV2Authentication.session(
                response: Array(answer.data), key: key, rndA: rndA, rndB: rndB, keyNumber: number)
            return true
        } catch let error as EV2Error {
            throw NFCTagError(.unexpectedResponse, "AuthenticateEV2First key \(number): \(error)")
        }
    }

    /// Reads file 02's settings (CommMode.MAC) and decides how WriteData travels.
    /// - Returns: the communication mode of WriteData and a description of the settings.
    mutating func fileSettings(_ session: inout EV2Session) async throws -> (CommMode, String) {
        let settings = try await send(0xF5, header: [0x02], data: [], mode: .mac, session: &session)
        guard settings.count >= 7 else {
            throw NFCTagError(.unexpectedResponse, "GetFileSettings answered \(settings.count) bytes")
        }
        let option = settings[1]
        let (rwChange, readWrite) = (settings[2], settings[3])
        let rights = [Int(readWrite & 0x0F), Int(rwChange >> 4)]
        let change = Int(rwChange & 0x0F)
        func name(_ right: Int) -> String { right == 0xE ? "free" : right == 0xF ? "never" : "key \(right)" }
        let description =
            "SDM \(option & 0x40 != 0 ? "on" : "off"), write \(name(rights[0])), change \(name(change))"
        guard change == 0 else {
            throw NFCTagError(
                .readOnly, "the NDEF file's settings are changed with \(name(change)), not key 0; nothing was changed")
        }
        if rights.contains(0xE) { return (.plain, description) }
        guard rights.contains(0) else {
            throw NFCTagError(
                .readOnly, "the NDEF file is written with \(name(rights[0])), not key 0; nothing was changed")
        }
        return (CommMode(rawValue: option & 0x03) ?? .plain, description)
    }

    /// Sends a native command in the session and checks its answer.
    mutating func send(
        _ code: UInt8, header: [UInt8], data: [UInt8], mode: CommMode, session: inout EV2Session,
        answerIsPlain: Bool = false
    ) async throws -> [UInt8] {
        let command: [UInt8]
        do {
            command = try session.command(code, header: header, data: data, mode: mode)
        } catch {
            throw NFCTagError(.messageTooLarge, "\(error)")
        }
        let response = try await channel.exchange(command)
        guard response.status == 0x9100 else { throw CommandName.unexpectedStatus(command, response) }
        if answerIsPlain { return [] }
        do {
            return try session.response(Array(response.data), mode: mode)
        } catch {
            throw NFCTagError(.unexpectedResponse, "\(CommandName.describe(command)): \(error)")
        }
    }
}
