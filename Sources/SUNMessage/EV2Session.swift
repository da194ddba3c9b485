import CZlib
import CryptoPrimitives
import Foundation

/// What went wrong in NTAG 424 DNA's authentication or secure messaging: one sentence.
public struct EV2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sentence.
    public let description: String

    /// Creates the error.
    /// - Parameter description: the sentence.
    public init(_ description: String) {
        self.description = description
    }
}

/// How a native NTAG 424 DNA command and its answer travel (data sheet NT4H2421Gx, "Secure messaging"):
/// in clear, in clear with a truncated AES-CMAC, or encrypted (AES-CBC) and MACed.
public enum CommMode: UInt8, Sendable, Hashable {
    /// CommMode.Plain.
    case plain = 0
    /// CommMode.MAC.
    case mac = 1
    /// CommMode.Full.
    case full = 3
}

/// An authenticated session with an NTAG 424 DNA, AES mode (EV2 secure messaging, NXP AN12196 "NTAG 424 DNA
/// and NTAG 424 DNA TagTamper features and hints", §5): the transaction identifier, the two session keys and
/// the command counter. Both sides use it: the reader (`tagrouter write --sun`) protects commands and checks
/// answers; the emulated tag checks commands and protects answers. Only AES-CBC and AES-CMAC are used, from
/// swift-crypto, as for the SUN message itself.
public struct EV2Session: Sendable, Hashable {
    /// TI: 4 bytes chosen by the tag.
    public let transactionID: [UInt8]
    /// KSesAuthENC.
    public let encryptionKey: [UInt8]
    /// KSesAuthMAC.
    public let macKey: [UInt8]
    /// The key the session was opened with.
    public let keyNumber: UInt8
    /// CmdCtr: 0 after authentication, one more after every command and its answer.
    public private(set) var commandCounter: UInt16

    /// A session with known keys (AN12196's worked examples start from such states).
    /// - Parameters:
    ///   - transactionID: TI.
    ///   - encryptionKey: KSesAuthENC.
    ///   - macKey: KSesAuthMAC.
    ///   - keyNumber: the key authenticated with.
    ///   - commandCounter: CmdCtr.
    public init(
        transactionID: [UInt8], encryptionKey: [UInt8], macKey: [UInt8], keyNumber: UInt8, commandCounter: UInt16 = 0
    ) {
        self.transactionID = transactionID
        self.encryptionKey = encryptionKey
        self.macKey = macKey
        self.keyNumber = keyNumber
        self.commandCounter = commandCounter
    }

    /// The session keys of an authentication: AES-CMAC with the key over SV1 (`A5 5A …`, KSesAuthENC) and SV2
    /// (`5A A5 …`, KSesAuthMAC), each `00 01 00 80`, then RndA[15..14], RndA[13..8] ⊕ RndB[15..10], RndB[9..0]
    /// and RndA[7..0] (bytes numbered from the right, as the data sheet does).
    /// - Parameters:
    ///   - key: the key authenticated with.
    ///   - rndA: the reader's random (16 bytes).
    ///   - rndB: the tag's random (16 bytes).
    ///   - transactionID: TI.
    ///   - keyNumber: the key's number.
    /// - Returns: the session, CmdCtr 0.
    /// - Throws: ``EV2Error`` when a length is wrong.
    public static func derive(
        key: [UInt8], rndA: [UInt8], rndB: [UInt8], transactionID: [UInt8], keyNumber: UInt8
    ) throws(EV2Error) -> EV2Session {
        guard rndA.count == 16, rndB.count == 16 else { throw EV2Error("RndA and RndB are 16 bytes") }
        let mixed = zip(rndA[2..<8], rndB[0..<6]).map { $0 ^ $1 }
        let tail = Array(rndA[0..<2]) + mixed + Array(rndB[6..<16]) + Array(rndA[8..<16])
        do {
            return EV2Session(
                transactionID: transactionID,
                encryptionKey: try CryptoPrimitives.aesCMAC([0xA5, 0x5A, 0x00, 0x01, 0x00, 0x80] + tail, key: key),
                macKey: try CryptoPrimitives.aesCMAC([0x5A, 0xA5, 0x00, 0x01, 0x00, 0x80] + tail, key: key),
                keyNumber: keyNumber)
        } catch {
            throw EV2Error("the key is not 16 bytes")
        }
    }

    // MARK: The reader's side

    /// A native command as an ISO 7816-4 APDU (`90 <code> 00 00 Lc <header> <data> 00`), protected as `mode` says.
    /// - Parameters:
    ///   - code: the command code (`5F` ChangeFileSettings, `C4` ChangeKey, …).
    ///   - header: CmdHeader, sent in clear (a file or key number).
    ///   - data: CmdData.
    ///   - mode: the communication mode.
    /// - Returns: the APDU.
    /// - Throws: ``EV2Error`` when the command is too long for one APDU.
    public func command(_ code: UInt8, header: [UInt8], data: [UInt8], mode: CommMode) throws(EV2Error) -> [UInt8] {
        let body: [UInt8]
        switch mode {
        case .plain:
            body = header + data
        case .mac:
            body = header + data + (try mac(commandMACInput(code, header + data)))
        case .full:
            let encrypted =
                data.isEmpty
                ? []
                : try Self.cbc(encrypt: Self.padded(data), key: encryptionKey, iv: iv(0xA5, 0x5A, commandCounter))
            body = header + encrypted + (try mac(commandMACInput(code, header + encrypted)))
        }
        return try Self.apdu(code, body)
    }

    /// Checks the answer to the last command and moves the counter on: the MAC (CommMode.MAC, .Full) over the
    /// status, the next CmdCtr, TI and the answer data, then the decryption (CommMode.Full).
    /// - Parameters:
    ///   - response: the answer without its status word.
    ///   - status: SW2 (`00` for success).
    ///   - mode: the communication mode of the command.
    /// - Returns: the answer data, in clear.
    /// - Throws: ``EV2Error`` when the MAC is wrong or the padding broken.
    public mutating func response(_ response: [UInt8], status: UInt8 = 0x00, mode: CommMode) throws(EV2Error)
        -> [UInt8]
    {
        commandCounter &+= 1
        guard mode != .plain else { return response }
        guard response.count >= 8 else { throw EV2Error("the answer has no MAC (\(response.count) bytes)") }
        let data = Array(response.dropLast(8))
        let expected = try mac([status] + counterBytes + transactionID + data)
        guard SUNCrypto.constantTimeEqual(expected, Array(response.suffix(8))) else {
            throw EV2Error("the answer's MAC is wrong")
        }
        guard mode == .full, !data.isEmpty else { return data }
        guard data.count % 16 == 0,
            let plain = Self.unpadded(
                try Self.cbc(decrypt: data, key: encryptionKey, iv: iv(0x5A, 0xA5, commandCounter)))
        else { throw EV2Error("the encrypted answer is not padded as ISO/IEC 9797-1 method 2 says") }
        return plain
    }

    // MARK: The tag's side

    /// Checks a protected command and returns its data in clear; the counter is not moved (``answer(_:mode:)``
    /// moves it).
    /// - Parameters:
    ///   - code: the command code.
    ///   - headerLength: how many bytes of CmdHeader come before the data.
    ///   - body: what followed the APDU header: CmdHeader, the data, the MAC.
    ///   - mode: the command's communication mode.
    /// - Returns: CmdHeader and the data in clear; nil when the MAC is wrong, the padding broken or the
    ///   cryptography fails (the command is then refused).
    public func open(_ code: UInt8, headerLength: Int, body: [UInt8], mode: CommMode) -> (
        header: [UInt8], data: [UInt8]
    )? {
        guard body.count >= headerLength else { return nil }
        let header = Array(body.prefix(headerLength))
        guard mode != .plain else { return (header, Array(body.dropFirst(headerLength))) }
        guard body.count >= headerLength + 8 else { return nil }
        let protected = Array(body.dropLast(8))
        guard let expected = try? mac(commandMACInput(code, protected)),
            SUNCrypto.constantTimeEqual(expected, Array(body.suffix(8)))
        else { return nil }
        let data = Array(protected.dropFirst(headerLength))
        guard mode == .full, !data.isEmpty else { return (header, data) }
        guard data.count % 16 == 0,
            let decrypted = try? Self.cbc(decrypt: data, key: encryptionKey, iv: iv(0xA5, 0x5A, commandCounter)),
            let plain = Self.unpadded(decrypted)
        else { return nil }
        return (header, plain)
    }

    /// Protects a successful answer and moves the counter on.
    /// - Parameters:
    ///   - data: the answer data in clear.
    ///   - mode: the command's communication mode.
    /// - Returns: the answer to send before `91 00`.
    /// - Throws: ``EV2Error`` when AES-CMAC or AES-CBC fails.
    public mutating func answer(_ data: [UInt8], mode: CommMode) throws(EV2Error) -> [UInt8] {
        commandCounter &+= 1
        switch mode {
        case .plain:
            return data
        case .mac:
            return data + (try mac([0x00] + counterBytes + transactionID + data))
        case .full:
            let encrypted =
                data.isEmpty
                ? []
                : try Self.cbc(encrypt: Self.padded(data), key: encryptionKey, iv: iv(0x5A, 0xA5, commandCounter))
            return encrypted + (try mac([0x00] + counterBytes + transactionID + encrypted))
        }
    }

    // MARK: ChangeKey

    /// ChangeKey's data: the new key and its version when the key changed is the one authenticated with;
    /// otherwise the new key XOR the old one, the version and the new key's CRC32 (IEEE 802.3, without the final
    /// inversion, least significant byte first), so that a wrong old key is refused by the tag, which then keeps
    /// its key.
    /// - Parameters:
    ///   - keyNumber: the key to change.
    ///   - newKey: its new value.
    ///   - oldKey: its value now (unused for the authenticated key).
    ///   - version: the new key's version.
    /// - Returns: CmdData, before encryption.
    public func changeKeyData(keyNumber: UInt8, newKey: [UInt8], oldKey: [UInt8], version: UInt8) -> [UInt8] {
        if keyNumber == self.keyNumber { return newKey + [version] }
        let crc = Self.crc32(newKey) ^ 0xFFFF_FFFF
        return zip(newKey, oldKey).map { $0 ^ $1 } + [version]
            + [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
    }

    /// The tag's reading of ChangeKey's data: the new key and its version, or nil when the CRC does not match
    /// (a wrong old key, or altered data).
    /// - Parameters:
    ///   - data: CmdData in clear.
    ///   - keyNumber: the key being changed.
    ///   - oldKey: the tag's value for it now.
    /// - Returns: the new key and its version.
    public func readChangeKeyData(_ data: [UInt8], keyNumber: UInt8, oldKey: [UInt8]) -> (key: [UInt8], version: UInt8)?
    {
        if keyNumber == self.keyNumber {
            guard data.count == 17 else { return nil }
            return (Array(data.prefix(16)), data[16])
        }
        guard data.count == 21 else { return nil }
        let key = zip(data.prefix(16), oldKey).map { $0 ^ $1 }
        let crc = Self.crc32(key) ^ 0xFFFF_FFFF
        let sent = UInt32(data[17]) | UInt32(data[18]) << 8 | UInt32(data[19]) << 16 | UInt32(data[20]) << 24
        return crc == sent ? (key, data[16]) : nil
    }

    // MARK: Building blocks

    private var counterBytes: [UInt8] { [UInt8(commandCounter & 0xFF), UInt8(commandCounter >> 8)] }

    private func commandMACInput(_ code: UInt8, _ rest: [UInt8]) -> [UInt8] {
        [code] + counterBytes + transactionID + rest
    }

    /// MACt: the odd bytes (8 of 16) of AES-CMAC with KSesAuthMAC.
    private func mac(_ input: [UInt8]) throws(EV2Error) -> [UInt8] {
        let full: [UInt8]
        do {
            full = try CryptoPrimitives.aesCMAC(input, key: macKey)
        } catch {
            throw EV2Error("AES-CMAC failed: \(error)")
        }
        return stride(from: 1, to: 16, by: 2).map { full[$0] }
    }

    /// The IV of an encrypted command (`A5 5A`) or answer (`5A A5`): E(KSesAuthENC, label || TI || CmdCtr || 0…).
    private func iv(_ first: UInt8, _ second: UInt8, _ counter: UInt16) throws(EV2Error) -> [UInt8] {
        let block =
            [first, second] + transactionID + [UInt8(counter & 0xFF), UInt8(counter >> 8)]
            + [UInt8](repeating: 0, count: 8)
        return try Self.cbc(encrypt: block, key: encryptionKey, iv: SUNCrypto.zeroBlock)
    }

    static func apdu(_ code: UInt8, _ body: [UInt8]) throws(EV2Error) -> [UInt8] {
        guard body.count <= 255 else { throw EV2Error("the command's data is \(body.count) bytes, more than 255") }
        return [0x90, code, 0x00, 0x00] + (body.isEmpty ? [] : [UInt8(body.count)] + body) + [0x00]
    }

    /// ISO/IEC 9797-1 padding method 2: `80` then zeros to a whole block, always.
    static func padded(_ data: [UInt8]) -> [UInt8] {
        var padded = data + [0x80]
        padded += [UInt8](repeating: 0, count: (16 - padded.count % 16) % 16)
        return padded
    }

    static func unpadded(_ data: [UInt8]) -> [UInt8]? {
        guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80 else { return nil }
        return Array(data[..<marker])
    }

    static func cbc(encrypt plain: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] {
        do {
            return try CryptoPrimitives.aesCBC(encrypt: plain, key: key, iv: iv)
        } catch {
            throw EV2Error("AES-CBC encryption failed: \(error)")
        }
    }

    static func cbc(decrypt encrypted: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] {
        do {
            return try CryptoPrimitives.aesCBC(decrypt: encrypted, key: key, iv: iv)
        } catch {
            throw EV2Error("AES-CBC decryption failed: \(error)")
        }
    }

    /// zlib's CRC-32 (IEEE 802.3).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, UInt32($0.count)) })
    }
}

/// AuthenticateEV2First with an AES key (data sheet NT4H2421Gx; AN12196 §5.6): the reader's two commands and
/// the tag's two answers.
public enum EV2Authentication {
    /// Part 1: `90 71 00 00 02 <key number> 00 00`.
    /// - Parameter keyNumber: the key to authenticate with (0 to 4).
    /// - Returns: the APDU.
    public static func firstCommand(keyNumber: UInt8) -> [UInt8] {
        [0x90, 0x71, 0x00, 0x00, 0x02, keyNumber, 0x00, 0x00]
    }

    /// Part 2: from the tag's E(K, RndB), RndB and the command `90 AF 00 00 20 E(K, RndA || RndB') 00`, RndB'
    /// being RndB turned left by one byte.
    /// - Parameters:
    ///   - encryptedRndB: the tag's answer to part 1 (16 bytes).
    ///   - key: the key.
    ///   - rndA: the reader's random (16 bytes).
    /// - Returns: the command and RndB.
    /// - Throws: ``EV2Error`` when a length is wrong.
    public static func secondCommand(encryptedRndB: [UInt8], key: [UInt8], rndA: [UInt8]) throws(EV2Error) -> (
        command: [UInt8], rndB: [UInt8]
    ) {
        guard encryptedRndB.count == 16 else {
            throw EV2Error("the answer to AuthenticateEV2First is \(encryptedRndB.count) bytes, not 16")
        }
        guard key.count == 16, rndA.count == 16 else { throw EV2Error("the key and RndA are 16 bytes") }
        let rndB = try EV2Session.cbc(decrypt: encryptedRndB, key: key, iv: SUNCrypto.zeroBlock)
        let encrypted = try EV2Session.cbc(encrypt: rndA + rotated(rndB), key: key, iv: SUNCrypto.zeroBlock)
        return ([0x90, 0xAF, 0x00, 0x00, 0x20] + encrypted + [0x00], rndB)
    }

    /// The end: the tag's E(K, TI || RndA' || PDcap2 || PCDcap2) checked (RndA' must be RndA turned left), and
    /// the session.
    /// - Parameters:
    ///   - response: the tag's answer to part 2 (32 bytes).
    ///   - key: the key.
    ///   - rndA: the reader's random.
    ///   - rndB: the tag's random.
    ///   - keyNumber: the key's number.
    /// - Returns: the session, CmdCtr 0.
    /// - Throws: ``EV2Error`` when the tag did not prove it holds the key.
    public static func session(
        response: [UInt8], key: [UInt8], rndA: [UInt8], rndB: [UInt8], keyNumber: UInt8
    ) throws(EV2Error) -> EV2Session {
        guard response.count == 32 else {
            throw EV2Error("the tag's last authentication answer is \(response.count) bytes, not 32")
        }
        let plain = try EV2Session.cbc(decrypt: response, key: key, iv: SUNCrypto.zeroBlock)
        guard SUNCrypto.constantTimeEqual(Array(plain[4..<20]), rotated(rndA)) else {
            throw EV2Error("the tag did not return RndA: it does not hold the key")
        }
        return try EV2Session.derive(
            key: key, rndA: rndA, rndB: rndB, transactionID: Array(plain[0..<4]), keyNumber: keyNumber)
    }

    // MARK: The tag's side

    /// The tag's answer to part 1: E(K, RndB).
    /// - Parameters:
    ///   - key: the key named in part 1.
    ///   - rndB: the tag's random (16 bytes).
    /// - Returns: 16 bytes.
    /// - Throws: ``EV2Error`` when AES-CBC fails (a key that is not 16 bytes).
    public static func challenge(key: [UInt8], rndB: [UInt8]) throws(EV2Error) -> [UInt8] {
        try EV2Session.cbc(encrypt: rndB, key: key, iv: SUNCrypto.zeroBlock)
    }

    /// The tag's answer to part 2 and the session it opens, or nil when the reader did not return RndB (it does
    /// not hold the key).
    /// - Parameters:
    ///   - data: the 32 bytes of part 2.
    ///   - key: the key.
    ///   - rndB: the tag's random.
    ///   - transactionID: TI, 4 random bytes.
    ///   - keyNumber: the key's number.
    /// - Returns: the answer (32 bytes) and the session; nil also when the cryptography fails.
    public static func accept(
        _ data: [UInt8], key: [UInt8], rndB: [UInt8], transactionID: [UInt8], keyNumber: UInt8
    ) -> (response: [UInt8], session: EV2Session)? {
        guard data.count == 32 else { return nil }
        guard let plain = try? EV2Session.cbc(decrypt: data, key: key, iv: SUNCrypto.zeroBlock) else { return nil }
        let rndA = Array(plain[0..<16])
        let caps = [UInt8](repeating: 0, count: 12)
        guard SUNCrypto.constantTimeEqual(Array(plain[16..<32]), rotated(rndB)),
            let session = try? EV2Session.derive(
                key: key, rndA: rndA, rndB: rndB, transactionID: transactionID, keyNumber: keyNumber),
            let response = try? EV2Session.cbc(
                encrypt: transactionID + rotated(rndA) + caps, key: key, iv: SUNCrypto.zeroBlock)
        else { return nil }
        return (response, session)
    }

    static func rotated(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.dropFirst()) + bytes.prefix(1)
    }
}
