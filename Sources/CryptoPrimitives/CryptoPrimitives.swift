#if SwiftCrypto
    import Crypto
    import CryptoExtras
#elseif !FuzzingStandIns
    #error("TagRouter needs its default trait SwiftCrypto; the trait FuzzingStandIns is for the fuzz build alone")
#endif

/// The cryptography below the rule language, in one place: SHA-256 (the key set ids of `sun` rules, the hash in a
/// redacted webhook URL), AES-128 CMAC and AES-128 CBC without padding (NTAG 424 DNA's SUN messages and EV2 secure
/// messaging, `SUNMessage`).
///
/// Built with TagRouter's default trait `SwiftCrypto`, as every build of the router, its tests and its benchmarks
/// is, these are swift-crypto's `SHA256`, `AES.CMAC` and `AES._CBC`. The fuzz build (Fuzz/Package.swift) enables
/// the trait `FuzzingStandIns` instead, so that the parsers it fuzzes build without BoringSSL: the functions then
/// keep their shapes (lengths, errors, a cipher that decrypts what it encrypts) but are deliberately not
/// cryptography (``StandIns``), so that a SUN message's MAC no longer keeps the fuzzer out of what follows a
/// verified one. A build with neither trait does not compile. docs/RELIABILITY.md, "Fuzzing", tells more.
public enum CryptoPrimitives {
    /// The length of an AES block, of an AES-128 key and of a CBC initialisation vector.
    public static let blockLength = 16

    /// Why a primitive refused its input: a key, an initialisation vector or a length that AES-128 cannot take.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, in one line.
        public let description: String
        /// Creates a failure.
        /// - Parameter description: what was wrong, in one line.
        public init(_ description: String) { self.description = description }
    }

    /// SHA-256.
    /// - Parameter bytes: the message.
    /// - Returns: the 32-byte digest.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        #if SwiftCrypto
            Array(SHA256.hash(data: bytes))
        #else
            StandIns.digest(bytes)
        #endif
    }

    /// AES-128 CMAC (NIST SP 800-38B).
    /// - Parameters:
    ///   - message: the message, any length.
    ///   - key: the key, 16 bytes.
    /// - Returns: the 16-byte MAC.
    /// - Throws: ``Failure`` when the key is not 16 bytes.
    public static func aesCMAC(_ message: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        try check(key: key)
        #if SwiftCrypto
            do {
                var mac = try AES.CMAC(key: SymmetricKey(data: key))
                mac.update(data: message)
                return Array(mac.finalize())
            } catch {
                throw Failure("swift-crypto refused it: \(error)")
            }
        #else
            return StandIns.mac(message, key: key)
        #endif
    }

    /// AES-128 CBC encryption without padding.
    /// - Parameters:
    ///   - plain: the plaintext, a multiple of 16 bytes.
    ///   - key: the key, 16 bytes.
    ///   - iv: the initialisation vector, 16 bytes.
    /// - Returns: the ciphertext, as long as the plaintext.
    /// - Throws: ``Failure`` when a length is wrong.
    public static func aesCBC(encrypt plain: [UInt8], key: [UInt8], iv: [UInt8]) throws(Failure) -> [UInt8] {
        try cbc(plain, key: key, iv: iv, encrypting: true)
    }

    /// AES-128 CBC decryption without padding.
    /// - Parameters:
    ///   - encrypted: the ciphertext, a multiple of 16 bytes.
    ///   - key: the key, 16 bytes.
    ///   - iv: the initialisation vector, 16 bytes.
    /// - Returns: the plaintext, as long as the ciphertext.
    /// - Throws: ``Failure`` when a length is wrong.
    public static func aesCBC(decrypt encrypted: [UInt8], key: [UInt8], iv: [UInt8]) throws(Failure) -> [UInt8] {
        try cbc(encrypted, key: key, iv: iv, encrypting: false)
    }

    private static func cbc(_ data: [UInt8], key: [UInt8], iv: [UInt8], encrypting: Bool) throws(Failure) -> [UInt8] {
        try check(key: key, iv: iv, data: data)
        #if SwiftCrypto
            do {
                let key = SymmetricKey(data: key)
                let iv = try AES._CBC.IV(ivBytes: iv)
                return Array(
                    encrypting
                        ? try AES._CBC.encrypt(data, using: key, iv: iv, noPadding: true)
                        : try AES._CBC.decrypt(data, using: key, iv: iv, noPadding: true))
            } catch {
                throw Failure("swift-crypto refused it: \(error)")
            }
        #else
            return encrypting ? StandIns.encrypt(data, key: key, iv: iv) : StandIns.decrypt(data, key: key, iv: iv)
        #endif
    }

    /// The checks both builds make before any work, so that they refuse the same inputs.
    private static func check(key: [UInt8], iv: [UInt8]? = nil, data: [UInt8]? = nil) throws(Failure) {
        guard key.count == blockLength else { throw Failure("the key is \(key.count) bytes, not 16") }
        if let iv, iv.count != blockLength {
            throw Failure("the initialisation vector is \(iv.count) bytes, not 16")
        }
        if let data, data.count % blockLength != 0 {
            throw Failure("the data is \(data.count) bytes, not a multiple of 16")
        }
    }
}
