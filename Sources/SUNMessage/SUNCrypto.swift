import CryptoPrimitives
import Foundation

/// The AES mode of NTAG 424 DNA's Secure Unique NFC message (NXP AN12196, "NTAG 424 DNA and NTAG 424 DNA TagTamper
/// features and hints", and the NTAG 424 DNA data sheet, "Secure Dynamic Messaging"): the tag side (used by the
/// emulated tag) and the reader side (used by rules). Only AES-CBC and AES-CMAC are used (`CryptoPrimitives`); LRP
/// mode is not implemented.
public enum SUNCrypto {
    /// The length of every key: AES-128.
    public static let keyLength = 16
    /// The PICCDataTag of a message that mirrors the 7-byte UID and the read counter (the only layout handled).
    public static let piccDataTag: UInt8 = 0xC7

    /// What a SUN message failed on, or what it holds.
    public enum Verdict: Sendable, Hashable {
        /// The MAC is right: the tag's UID, its read counter and the decrypted file data, if any.
        case verified(Reading)
        /// The PICCData does not decrypt to a known layout: the meta read key is not the tag's (or the data was
        /// altered).
        case wrongKey
        /// The PICCData decrypts, but the MAC does not match: the URL was altered, or the file read key is not
        /// the tag's.
        case badMAC
        /// The message cannot be a SUN message: missing items, not hex, wrong lengths, or LRP mode.
        case malformed(String)
    }

    /// What a verified message says.
    public struct Reading: Sendable, Hashable {
        /// The UID, 7 bytes.
        public var uid: [UInt8]
        /// SDMReadCtr.
        public var counter: UInt32
        /// The decrypted file data, when the message has some.
        public var fileData: [UInt8]?

        /// Creates a reading.
        /// - Parameters:
        ///   - uid: the UID.
        ///   - counter: the read counter.
        ///   - fileData: the decrypted file data.
        public init(uid: [UInt8], counter: UInt32, fileData: [UInt8]? = nil) {
            self.uid = uid
            self.counter = counter
            self.fileData = fileData
        }
    }

    // MARK: The reader's side

    /// Verifies an encrypted SUN message (PICCData encrypted with K_SDMMetaRead, MAC with K_SDMFileRead).
    /// - Parameters:
    ///   - piccData: the encrypted PICCData (16 bytes; 24 is LRP mode, refused).
    ///   - mac: the SDMMAC (8 bytes).
    ///   - encData: the encrypted file data, if the message has some (a multiple of 16 bytes).
    ///   - macInput: what the MAC covers: the URL's text from the file data to the MAC (empty without file data).
    ///   - metaReadKey: K_SDMMetaRead.
    ///   - fileReadKey: K_SDMFileRead.
    /// - Returns: the verdict.
    public static func verify(
        piccData: [UInt8], mac: [UInt8], encData: [UInt8]?, macInput: [UInt8], metaReadKey: [UInt8],
        fileReadKey: [UInt8]
    ) -> Verdict {
        verify(
            piccData: piccData, mac: mac, encData: encData, macInput: macInput, metaReadKey: metaReadKey,
            fileReadKeyFor: { _ in fileReadKey })
    }

    /// Verifies an encrypted SUN message whose file read key depends on the UID inside it (a key diversified per
    /// tag, ``diversified(masterKey:input:)``).
    /// - Parameters:
    ///   - piccData: the encrypted PICCData.
    ///   - mac: the SDMMAC.
    ///   - encData: the encrypted file data, if any.
    ///   - macInput: what the MAC covers.
    ///   - metaReadKey: K_SDMMetaRead, the same for every tag (it reveals the UID).
    ///   - fileReadKeyFor: K_SDMFileRead of the tag with this UID; nil when there is none.
    /// - Returns: the verdict.
    public static func verify(
        piccData: [UInt8], mac: [UInt8], encData: [UInt8]?, macInput: [UInt8], metaReadKey: [UInt8],
        fileReadKeyFor: ([UInt8]) -> [UInt8]?
    ) -> Verdict {
        if piccData.count == 24 {
            return .malformed("the PICCData is 24 bytes: LRP mode, which is not supported (AES mode only)")
        }
        guard piccData.count == 16 else { return .malformed("the PICCData is \(piccData.count) bytes, not 16") }
        guard mac.count == 8 else { return .malformed("the MAC is \(mac.count) bytes, not 8") }
        if let encData, encData.isEmpty || encData.count % 16 != 0 {
            return .malformed("the encrypted file data is \(encData.count) bytes, not a multiple of 16")
        }
        guard let plain = try? CryptoPrimitives.aesCBC(decrypt: piccData, key: metaReadKey, iv: zeroBlock),
            plain[0] == piccDataTag
        else {
            return .wrongKey
        }
        let uid = Array(plain[1..<8])
        let counter = UInt32(plain[8]) | UInt32(plain[9]) << 8 | UInt32(plain[10]) << 16
        guard let fileReadKey = fileReadKeyFor(uid) else { return .badMAC }
        guard let expected = try? self.mac(fileReadKey: fileReadKey, uid: uid, counter: counter, input: macInput),
            constantTimeEqual(expected, mac)
        else { return .badMAC }
        var reading = Reading(uid: uid, counter: counter)
        if let encData {
            reading.fileData = try? fileData(decrypting: encData, fileReadKey: fileReadKey, uid: uid, counter: counter)
        }
        return .verified(reading)
    }

    /// Verifies a message that mirrors the UID and the counter in clear, with a MAC.
    /// - Parameters:
    ///   - uid: the UID (7 bytes).
    ///   - counter: the read counter.
    ///   - mac: the SDMMAC (8 bytes).
    ///   - macInput: what the MAC covers (empty in the usual layout).
    ///   - fileReadKey: K_SDMFileRead.
    /// - Returns: the verdict.
    public static func verifyPlain(uid: [UInt8], counter: UInt32, mac: [UInt8], macInput: [UInt8], fileReadKey: [UInt8])
        -> Verdict
    {
        guard uid.count == 7 else { return .malformed("the UID is \(uid.count) bytes, not 7") }
        guard mac.count == 8 else { return .malformed("the MAC is \(mac.count) bytes, not 8") }
        guard let expected = try? self.mac(fileReadKey: fileReadKey, uid: uid, counter: counter, input: macInput),
            constantTimeEqual(expected, mac)
        else { return .badMAC }
        return .verified(Reading(uid: uid, counter: counter))
    }

    // MARK: The tag's side

    /// The encrypted PICCData of a read: PICCDataTag, UID, counter (LSB first) and 5 bytes of padding.
    /// - Parameters:
    ///   - uid: the UID (7 bytes).
    ///   - counter: the read counter.
    ///   - padding: 5 random bytes.
    ///   - metaReadKey: K_SDMMetaRead.
    /// - Returns: 16 bytes.
    /// - Throws: when a key or a length is wrong.
    public static func piccData(uid: [UInt8], counter: UInt32, padding: [UInt8], metaReadKey: [UInt8]) throws
        -> [UInt8]
    {
        guard uid.count == 7, padding.count == 5 else {
            throw CryptoPrimitives.Failure(
                "the UID must be 7 bytes and the padding 5, not \(uid.count) and \(padding.count)")
        }
        return try CryptoPrimitives.aesCBC(
            encrypt: [piccDataTag] + uid + counterBytes(counter) + padding, key: metaReadKey, iv: zeroBlock)
    }

    /// The SDMMAC: AES-CMAC with the session MAC key over `input`, its odd bytes (8 of 16).
    /// - Parameters:
    ///   - fileReadKey: K_SDMFileRead.
    ///   - uid: the UID.
    ///   - counter: the read counter.
    ///   - input: the MAC input.
    /// - Returns: 8 bytes.
    /// - Throws: when the key is not 16 bytes.
    public static func mac(fileReadKey: [UInt8], uid: [UInt8], counter: UInt32, input: [UInt8]) throws -> [UInt8] {
        let key = try sessionKey([0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80], fileReadKey: fileReadKey, uid, counter)
        let full = try CryptoPrimitives.aesCMAC(input, key: key)
        return stride(from: 1, to: 16, by: 2).map { full[$0] }
    }

    /// Encrypts file data as the tag mirrors it (a multiple of 16 bytes).
    /// - Parameters:
    ///   - plain: the file data.
    ///   - fileReadKey: K_SDMFileRead.
    ///   - uid: the UID.
    ///   - counter: the read counter.
    /// - Returns: the encrypted data.
    /// - Throws: when a key or a length is wrong.
    public static func fileData(encrypting plain: [UInt8], fileReadKey: [UInt8], uid: [UInt8], counter: UInt32)
        throws -> [UInt8]
    {
        let (key, iv) = try fileDataKey(fileReadKey: fileReadKey, uid: uid, counter: counter)
        return try CryptoPrimitives.aesCBC(encrypt: plain, key: key, iv: iv)
    }

    /// Decrypts mirrored file data.
    /// - Parameters:
    ///   - encrypted: the encrypted data.
    ///   - fileReadKey: K_SDMFileRead.
    ///   - uid: the UID.
    ///   - counter: the read counter.
    /// - Returns: the file data.
    /// - Throws: when a key or a length is wrong.
    public static func fileData(decrypting encrypted: [UInt8], fileReadKey: [UInt8], uid: [UInt8], counter: UInt32)
        throws -> [UInt8]
    {
        let (key, iv) = try fileDataKey(fileReadKey: fileReadKey, uid: uid, counter: counter)
        return try CryptoPrimitives.aesCBC(decrypt: encrypted, key: key, iv: iv)
    }

    // MARK: Key diversification

    /// A key diversified from a master key as NXP AN10922 describes for AES-128: AES-CMAC with the master key over
    /// `01 || M`, where M (the UID, the application ID, a system identifier) is 16 to 30 bytes. AN10922 pads
    /// `01 || M` to 32 bytes with `80 00…` and finishes with CMAC's second subkey, which is exactly what AES-CMAC
    /// does for an input of 17 to 31 bytes: no other construction is needed.
    /// - Parameters:
    ///   - masterKey: the master key (16 bytes).
    ///   - input: M, 16 to 30 bytes.
    /// - Returns: the diversified key (16 bytes).
    /// - Throws: when the key is not 16 bytes or M is not 16 to 30 bytes.
    public static func diversified(masterKey: [UInt8], input: [UInt8]) throws -> [UInt8] {
        guard (16...30).contains(input.count) else {
            throw CryptoPrimitives.Failure("the diversification input is \(input.count) bytes, not 16 to 30")
        }
        return try CryptoPrimitives.aesCMAC([0x01] + input, key: masterKey)
    }

    // MARK: Building blocks

    static let zeroBlock = [UInt8](repeating: 0, count: 16)

    static func counterBytes(_ counter: UInt32) -> [UInt8] {
        [UInt8(counter & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter >> 16 & 0xFF)]
    }

    /// A session key: AES-CMAC with K_SDMFileRead over SV (the prefix, the UID and the counter LSB first).
    static func sessionKey(_ prefix: [UInt8], fileReadKey: [UInt8], _ uid: [UInt8], _ counter: UInt32) throws
        -> [UInt8]
    {
        try CryptoPrimitives.aesCMAC(prefix + uid + counterBytes(counter), key: fileReadKey)
    }

    /// The file data's session key (from SV1) and IV (the counter encrypted with it).
    static func fileDataKey(fileReadKey: [UInt8], uid: [UInt8], counter: UInt32) throws -> ([UInt8], [UInt8]) {
        let key = try sessionKey([0xC3, 0x3C, 0x00, 0x01, 0x00, 0x80], fileReadKey: fileReadKey, uid, counter)
        let iv = try CryptoPrimitives.aesCBC(
            encrypt: counterBytes(counter) + [UInt8](repeating: 0, count: 13), key: key, iv: zeroBlock)
        return (key, iv)
    }

    /// Compares two MACs in time that does not depend on where they differ.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
