import SUNMessage
import Testing

/// NTAG 424 DNA's AuthenticateEV2First and secure messaging against the worked examples of NXP AN12196 (§5:
/// authentication with the zero key, ChangeFileSettings enabling SDM, ChangeKey of another key and of the
/// authenticated one, GetFileSettings in CommMode.MAC), on both sides: the reader's commands must be the
/// application note's bytes, and the tag's side must accept them and answer the note's bytes.
@Suite struct EV2SessionTests {
    static let hex = SUNCryptoTests.hex
    static let zero = SUNCryptoTests.zero

    /// AN12196 table 14: AuthenticateEV2First with key 0, the zero key.
    static let rndA = hex("13C5DB8A5930439FC3DEF9A4C675360F")
    static let encryptedRndB = hex("A04C124213C186F22399D33AC2A30215")
    static let part2 = hex("90AF00002035C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D00")
    static let finalAnswer = hex("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663")

    @Test("AN12196 table 14: AuthenticateEV2First with the zero key gives TI 9D00C4DF and the session keys")
    func authenticationOnTheReadersSide() throws {
        #expect(EV2Authentication.firstCommand(keyNumber: 0) == Self.hex("9071000002000000"))
        let (command, rndB) = try EV2Authentication.secondCommand(
            encryptedRndB: Self.encryptedRndB, key: Self.zero, rndA: Self.rndA)
        #expect(command == Self.part2)
        #expect(rndB == Self.hex("B9E2FC789B64BF237CCCAA20EC7E6E48"))
        let session = try EV2Authentication.session(
            response: Self.finalAnswer, key: Self.zero, rndA: Self.rndA, rndB: rndB, keyNumber: 0)
        #expect(session.transactionID == Self.hex("9D00C4DF"))
        #expect(session.encryptionKey == Self.hex("1309C877509E5A215007FF0ED19CA564"))
        #expect(session.macKey == Self.hex("4C6626F5E72EA694202139295C7A7FC7"))
        #expect(session.commandCounter == 0)
    }

    @Test("the tag's side answers AN12196's part 2 with the note's final answer, and refuses a wrong key")
    func authenticationOnTheTagsSide() throws {
        let rndB = Self.hex("B9E2FC789B64BF237CCCAA20EC7E6E48")
        #expect(try EV2Authentication.challenge(key: Self.zero, rndB: rndB) == Self.encryptedRndB)
        let data = Array(Self.part2[5..<37])
        let accepted = try #require(
            EV2Authentication.accept(
                data, key: Self.zero, rndB: rndB, transactionID: Self.hex("9D00C4DF"), keyNumber: 0))
        #expect(accepted.response == Self.finalAnswer)
        #expect(accepted.session.macKey == Self.hex("4C6626F5E72EA694202139295C7A7FC7"))
        var otherKey = Self.zero
        otherKey[15] = 1
        #expect(
            EV2Authentication.accept(
                data, key: otherKey, rndB: rndB, transactionID: Self.hex("9D00C4DF"), keyNumber: 0) == nil)
        let (command, wrongB) = try EV2Authentication.secondCommand(
            encryptedRndB: Self.encryptedRndB, key: otherKey, rndA: Self.rndA)
        #expect(command != Self.part2)
        #expect(throws: EV2Error.self) {
            try EV2Authentication.session(
                response: Self.finalAnswer, key: otherKey, rndA: Self.rndA, rndB: wrongB, keyNumber: 0)
        }
    }

    static let session = EV2Session(
        transactionID: hex("9D00C4DF"), encryptionKey: hex("1309C877509E5A215007FF0ED19CA564"),
        macKey: hex("4C6626F5E72EA694202139295C7A7FC7"), keyNumber: 0, commandCounter: 1)

    @Test("AN12196 tables 18 and 19: ChangeFileSettings enabling SDM, CommMode.Full, and its answer's MAC")
    func changeFileSettings() throws {
        var reader = Self.session
        let settings = Self.hex("4000E0C1F121200000430000430000")
        let command = try reader.command(0x5F, header: [0x02], data: settings, mode: .full)
        #expect(command == Self.hex("905F0000190261B6D97903566E84C3AE5274467E89EAD799B7C1A0EF7A0400"))
        let answerMAC = Self.hex("57BFF87B1241E93D")
        #expect(try reader.response(answerMAC, mode: .full) == [])
        #expect(reader.commandCounter == 2)

        var tag = Self.session
        let opened = try #require(tag.open(0x5F, headerLength: 1, body: Array(command[5..<30]), mode: .full))
        #expect(opened.header == [0x02])
        #expect(opened.data == settings)
        #expect(try tag.answer([], mode: .full) == answerMAC)

        var tampered = Self.session
        #expect(throws: EV2Error.self) { try tampered.response(Self.hex("57BFF87B1241E93E"), mode: .full) }
        var altered = Array(command[5..<30])
        altered[3] ^= 1
        #expect(Self.session.open(0x5F, headerLength: 1, body: altered, mode: .full) == nil)
    }

    static let changeKeySession = EV2Session(
        transactionID: hex("7614281A"), encryptionKey: hex("4CF3CB41A22583A61E89B158D252FC53"),
        macKey: hex("5529860B2FC5FB6154B7F28361D30BF9"), keyNumber: 0, commandCounter: 2)

    @Test("AN12196 table 26: ChangeKey of key 2 (not the authenticated key): new XOR old, version, CRC32")
    func changeAnotherKey() throws {
        let newKey = Self.hex("F3847D627727ED3BC9C4CC050489B966")
        let session = Self.changeKeySession
        let data = session.changeKeyData(keyNumber: 2, newKey: newKey, oldKey: Self.zero, version: 0x01)
        let command = try session.command(0xC4, header: [0x02], data: data, mode: .full)
        #expect(
            command
                == Self.hex(
                    "90C4000029022CF362B7BF4311FF3BE1DAA295E8C68DE09050560D19B9E16C2393AE9CD1FAC75D0CE20BCD1D06E600"))
        let opened = try #require(session.open(0xC4, headerLength: 1, body: Array(command[5..<46]), mode: .full))
        let read = try #require(session.readChangeKeyData(opened.data, keyNumber: 2, oldKey: Self.zero))
        #expect(read.key == newKey)
        #expect(read.version == 0x01)
        // The tag holding another old key finds the CRC wrong and keeps its key.
        var otherOld = Self.zero
        otherOld[0] = 0x55
        #expect(session.readChangeKeyData(opened.data, keyNumber: 2, oldKey: otherOld) == nil)
    }

    @Test("AN12196 table 27: ChangeKey of key 0, the authenticated key: the new key and its version")
    func changeTheAuthenticatedKey() throws {
        var session = Self.changeKeySession
        _ = try session.answer([], mode: .plain)
        let newKey = Self.hex("5004BF991F408672B1EF00F08F9E8647")
        let data = session.changeKeyData(keyNumber: 0, newKey: newKey, oldKey: Self.zero, version: 0x01)
        #expect(
            try session.command(0xC4, header: [0x00], data: data, mode: .full)
                == Self.hex(
                    "90C400002900C0EB4DEEFEDDF0B513A03A95A75491818580503190D4D05053FF75668A01D6FDA6610234BDED643200"))
    }

    @Test("AN12196 §5.10: GetFileSettings in CommMode.MAC, and its MACed answer")
    func getFileSettingsMACed() throws {
        var session = EV2Session(
            transactionID: Self.hex("7A21085E"), encryptionKey: Self.zero,
            macKey: Self.hex("8248134A386E86EB7FAF54A52E536CB6"), keyNumber: 0)
        #expect(
            try session.command(0xF5, header: [0x02], data: [], mode: .mac)
                == Self.hex("90F5000009026597A457C8CD442C00"))
        let settings = Self.hex("0040EEEE000100D1FE001F00004400004400002000006A0000")
        #expect(try session.response(settings + Self.hex("2A474282E7A47986"), mode: .mac) == settings)
    }

    @Test("a cryptographic failure throws instead of giving a zero-block MAC or empty data")
    func cryptoFailuresThrow() {
        let shortKey: [UInt8] = [1, 2, 3]
        #expect(throws: EV2Error.self) { try EV2Authentication.challenge(key: shortKey, rndB: Self.zero) }
    }
}
