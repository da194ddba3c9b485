import SUNMessage
import Testing

/// NTAG 424 DNA SUN messages, AES mode, against the published examples of NXP AN12196 (the same vectors the
/// nfc-developer/sdm-backend tests pin), and the tag's side against the reader's.
@Suite struct SUNCryptoTests {
    static let zero = [UInt8](repeating: 0, count: 16)

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test("AN12196 page 12: PICCData and MAC with zero keys give UID 04DE5F1EACC040 and counter 61")
    func an12196PICCData() {
        let verdict = SUNCrypto.verify(
            piccData: Self.hex("EF963FF7828658A599F3041510671E88"), mac: Self.hex("94EED9EE65337086"), encData: nil,
            macInput: [], metaReadKey: Self.zero, fileReadKey: Self.zero)
        #expect(verdict == .verified(SUNCrypto.Reading(uid: Self.hex("04DE5F1EACC040"), counter: 61)))
    }

    @Test("AN12196 page 18: encrypted file data, the MAC over it and '&cmac='")
    func an12196FileData() {
        let encData = "CEE9A53E3E463EF1F459635736738962"
        let verdict = SUNCrypto.verify(
            piccData: Self.hex("FD91EC264309878BE6345CBE53BADF40"), mac: Self.hex("ECC1E7F6C6C73BF6"),
            encData: Self.hex(encData), macInput: Array((encData + "&cmac=").utf8), metaReadKey: Self.zero,
            fileReadKey: Self.zero)
        #expect(
            verdict
                == .verified(
                    SUNCrypto.Reading(
                        uid: Self.hex("04958CAA5C5E80"), counter: 8, fileData: Array("xxxxxxxxxxxxxxxx".utf8))))
    }

    @Test("other keys: the sdm-backend custom vector")
    func customKeys() {
        let verdict = SUNCrypto.verify(
            piccData: Self.hex("8ACADDEF0A9B62CDAE39A16B83FC14DE"), mac: Self.hex("238B2543A8DEBAD8"),
            encData: Self.hex("B8436E11F627BB7F543FCC0C1E0D1A89"),
            macInput: Array("B8436E11F627BB7F543FCC0C1E0D1A89".utf8),
            metaReadKey: Self.hex("42aff114f2cb3b6141be6dc95dfc5416"),
            fileReadKey: Self.hex("b62a9baf092439bd43c62aee96b970c5"))
        #expect(
            verdict
                == .verified(
                    SUNCrypto.Reading(
                        uid: Self.hex("041d3c8a2d6b80"), counter: 291,
                        fileData: Self.hex("4e545858716e6f5f6f42467077792d56"))))
    }

    @Test("a tampered MAC, a wrong meta key, a wrong file key, LRP and bad lengths are each told apart")
    func failures() {
        let picc = Self.hex("EF963FF7828658A599F3041510671E88")
        let mac = Self.hex("94EED9EE65337086")
        var tampered = mac
        tampered[7] ^= 0x01
        #expect(
            SUNCrypto.verify(
                piccData: picc, mac: tampered, encData: nil, macInput: [], metaReadKey: Self.zero,
                fileReadKey: Self.zero) == .badMAC)
        var other = Self.zero
        other[0] = 1
        #expect(
            SUNCrypto.verify(
                piccData: picc, mac: mac, encData: nil, macInput: [], metaReadKey: other, fileReadKey: Self.zero)
                == .wrongKey)
        #expect(
            SUNCrypto.verify(
                piccData: picc, mac: mac, encData: nil, macInput: [], metaReadKey: Self.zero, fileReadKey: other)
                == .badMAC)
        let lrp = SUNCrypto.verify(
            piccData: Self.hex("1FCBE61B3E4CAD980CBFDD333E7A4AC4A579569BAFD22C5F"), mac: mac, encData: nil,
            macInput: [], metaReadKey: Self.zero, fileReadKey: Self.zero)
        #expect(lrp == .malformed("the PICCData is 24 bytes: LRP mode, which is not supported (AES mode only)"))
        #expect(
            SUNCrypto.verify(
                piccData: Array(picc.prefix(15)), mac: mac, encData: nil, macInput: [], metaReadKey: Self.zero,
                fileReadKey: Self.zero) == .malformed("the PICCData is 15 bytes, not 16"))
    }

    @Test("plain mirroring: UID and counter in clear, with the MAC")
    func plain() {
        #expect(
            SUNCrypto.verifyPlain(
                uid: Self.hex("041E3C8A2D6B80"), counter: 6, mac: Self.hex("4B00064004B0B3D3"), macInput: [],
                fileReadKey: Self.zero) == .verified(SUNCrypto.Reading(uid: Self.hex("041E3C8A2D6B80"), counter: 6)))
        #expect(
            SUNCrypto.verifyPlain(
                uid: Self.hex("041E3C8A2D6B80"), counter: 7, mac: Self.hex("4B00064004B0B3D3"), macInput: [],
                fileReadKey: Self.zero) == .badMAC)
    }

    @Test("what the tag's side writes, the reader's side verifies")
    func roundTrip() throws {
        let meta = Self.hex("00112233445566778899AABBCCDDEEFF")
        let file = Self.hex("FFEEDDCCBBAA99887766554433221100")
        let uid = Self.hex("04A1B2C3D4E580")
        let picc = try SUNCrypto.piccData(uid: uid, counter: 0x01_02_03, padding: [1, 2, 3, 4, 5], metaReadKey: meta)
        let encrypted = try SUNCrypto.fileData(
            encrypting: Array("door 7, floor 2!".utf8), fileReadKey: file, uid: uid, counter: 0x01_02_03)
        let input = Array((encrypted.map { String($0, radix: 16) }.joined() + "&m=").utf8)
        let mac = try SUNCrypto.mac(fileReadKey: file, uid: uid, counter: 0x01_02_03, input: input)
        #expect(
            SUNCrypto.verify(
                piccData: picc, mac: mac, encData: encrypted, macInput: input, metaReadKey: meta, fileReadKey: file)
                == .verified(SUNCrypto.Reading(uid: uid, counter: 0x01_02_03, fileData: Array("door 7, floor 2!".utf8)))
        )
    }

    @Test("AN10922's AES-128 diversification example")
    func an10922() throws {
        let key = try SUNCrypto.diversified(
            masterKey: Self.hex("00112233445566778899AABBCCDDEEFF"),
            input: Self.hex("04782E21801D80") + Self.hex("3042F5") + Self.hex("4E585020416275"))
        #expect(key == Self.hex("A8DD63A3B89D54B37CA802473FDA9175"))
        #expect(throws: (any Error).self) {
            try SUNCrypto.diversified(masterKey: Self.zero, input: Self.hex("04782E21801D80"))
        }
    }
}
