import CryptoPrimitives
import Testing

/// The primitives under SUN messages, key set ids and redacted webhook URLs, against published test vectors (FIPS
/// 180-2's SHA-256 examples, RFC 4493's AES-CMAC examples, NIST SP 800-38A's CBC-AES128 example), and the refusals
/// that both builds of `CryptoPrimitives` (swift-crypto's and the fuzz build's stand-ins) make alike.
@Suite struct CryptoPrimitivesTests {
    static let key = SUNCryptoTests.hex("2B7E151628AED2A6ABF7158809CF4F3C")
    static let block = SUNCryptoTests.hex("6BC1BEE22E409F96E93D7E117393172A")

    @Test("SHA-256 of \"abc\" and of nothing (FIPS 180-2)")
    func sha256() {
        #expect(
            CryptoPrimitives.sha256(Array("abc".utf8))
                == SUNCryptoTests.hex("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"))
        #expect(
            CryptoPrimitives.sha256([])
                == SUNCryptoTests.hex("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"))
    }

    @Test("AES-CMAC of an empty message, one block and 40 bytes (RFC 4493, examples 1 to 3)")
    func cmac() throws {
        #expect(
            try CryptoPrimitives.aesCMAC([], key: Self.key) == SUNCryptoTests.hex("BB1D6929E95937287FA37D129B756746"))
        #expect(
            try CryptoPrimitives.aesCMAC(Self.block, key: Self.key)
                == SUNCryptoTests.hex("070A16B46B4D4144F79BDD9DD04A287C"))
        let forty = SUNCryptoTests.hex(
            "6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E5130C81C46A35CE411")
        #expect(
            try CryptoPrimitives.aesCMAC(forty, key: Self.key) == SUNCryptoTests.hex("DFA66747DE9AE63030CA32611497C827")
        )
    }

    @Test("AES-CBC encrypts NIST SP 800-38A's first block and decrypts it back")
    func cbc() throws {
        let iv = SUNCryptoTests.hex("000102030405060708090A0B0C0D0E0F")
        let encrypted = try CryptoPrimitives.aesCBC(encrypt: Self.block, key: Self.key, iv: iv)
        #expect(encrypted == SUNCryptoTests.hex("7649ABAC8119B246CEE98E9B12E9197D"))
        #expect(try CryptoPrimitives.aesCBC(decrypt: encrypted, key: Self.key, iv: iv) == Self.block)
    }

    @Test("A key, an initialisation vector or a length AES-128 cannot take is refused with what was wrong")
    func refusals() {
        let iv = [UInt8](repeating: 0, count: 16)
        #expect(throws: CryptoPrimitives.Failure("the key is 15 bytes, not 16")) {
            try CryptoPrimitives.aesCMAC([], key: Array(Self.key.dropLast()))
        }
        #expect(throws: CryptoPrimitives.Failure("the initialisation vector is 8 bytes, not 16")) {
            try CryptoPrimitives.aesCBC(encrypt: Self.block, key: Self.key, iv: Array(iv.prefix(8)))
        }
        #expect(throws: CryptoPrimitives.Failure("the data is 17 bytes, not a multiple of 16")) {
            try CryptoPrimitives.aesCBC(decrypt: Self.block + [0], key: Self.key, iv: iv)
        }
    }
}
