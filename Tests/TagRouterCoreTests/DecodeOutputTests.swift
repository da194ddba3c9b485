import Foundation
import NDEF
import Testing

@testable import RouterCommands

@Test(
    arguments: [
        ("d1010c55046578616d706c652e636f6d", [0xD1, 0x01, 0x0C, 0x55] + Array("\u{4}example.com".utf8)),
        (
            "D1:01:0C:55 04 65\n78 61 6d 70-6C 65 2E 63 6F 6D\n",
            [0xD1, 0x01, 0x0C, 0x55] + Array("\u{4}example.com".utf8)
        ),
        ("", []),
        ("  \n", []),
    ] as [(String, [UInt8])])
func parsesHexWithSeparators(text: String, bytes: [UInt8]) throws {
    #expect(try HexInput.bytes(text) == bytes)
}

@Test(arguments: [
    (
        "d1 0g",
        "hex input: 'g' at character 4 is not a hex digit (digits may be separated by spaces, colons, "
            + "dashes or newlines)"
    ),
    (
        "0x1f",
        "hex input: 'x' at character 1 is not a hex digit (digits may be separated by spaces, colons, "
            + "dashes or newlines)"
    ),
    (
        "d1\u{1B}",
        "hex input: '\\u{1B}' at character 2 is not a hex digit (digits may be separated by spaces, "
            + "colons, dashes or newlines)"
    ),
    (
        "ab١٢",
        "hex input: '١' at character 2 is not a hex digit (digits may be separated by spaces, colons, "
            + "dashes or newlines)"
    ),
    ("d1 0", "hex input: 3 hex digits is an odd count; every byte needs two"),
])
func refusesBadHex(text: String, sentence: String) {
    #expect(throws: HexInput.Failure(description: sentence)) { try HexInput.bytes(text) }
}

@Test func printsTheTree() {
    let hex =
        "91 01 05 54 02656e4869  11 02 23 5370 91010c55046578616d706c652e636f6d 1101085402656e48656c6c6f "
        + "51030161637400  5c 0f 0f 01 616e64726f69642e636f6d3a706b67 41 636f6d2e6578616d706c652e617070"
    let expected = """
        NDEF message: 3 records, 84 bytes
        tag URI: https://example.com
        record 0: well-known T
          text (en, utf-8): Hi
          payload (5 bytes): 02656e4869
        record 1: well-known Sp
          uri: https://example.com
          title (en): Hello
          action: open
          records (35 bytes):
            record 0: well-known U
              uri: https://example.com
              payload (12 bytes): 046578616d706c652e636f6d
            record 1: well-known T
              text (en, utf-8): Hello
              payload (8 bytes): 02656e48656c6c6f
            record 2: well-known act
              payload (1 byte): 00
        record 2: external android.com:pkg
          id: 41
          package: com.example.app
          payload (15 bytes): 636f6d2e6578616d706c652e617070
        """
    #expect(DecodeOutput.render(.hex(hex), json: false) == .success(expected))
}

@Test func printsJSONInTheRecordsShape() throws {
    let hex = "91 01 05 54 02656e4869  51 01 0c 55 046578616d706c652e636f6d"
    let expected =
        #"{"records":[{"encoding":"utf-8","lang":"en","payload":"02656e4869","text":"Hi","tnf":"well-known","type":"T"},"#
        + #"{"payload":"046578616d706c652e636f6d","tnf":"well-known","type":"U","uri":"https://example.com"}]}"#
    let output = try DecodeOutput.render(.hex(hex), json: true).get()
    #expect(output == expected)
    // It is JSON scripts can read.
    let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [[String: String]]]
    #expect(object?["records"]?[1]["uri"] == "https://example.com")
}

@Test func reportsTheNDEFErrorSentence() {
    #expect(
        DecodeOutput.render(.bytes([0xD1, 0x01, 0x02, 0x55, 0x24, 0x61]), json: false)
            == .failure(
                .init(
                    description: "record 0 at byte 4: URI identifier code 0x24 is reserved (0x00 to 0x23 are defined)"))
    )
    #expect(
        DecodeOutput.render(.hex("d1 01 0c 55 04"), json: true)
            == .failure(
                .init(description: "record 0 at byte 0: payload length 12 runs past the end of the message (5 bytes)")))
}

@Test func escapesControlCharactersFromTags() throws {
    // A Text record whose text holds ESC [ 2 J (clear screen) and a newline.
    let text = Array("\u{1B}[2J\nok".utf8)
    let record = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E] + text)
    let bytes = try NDEFMessage(records: [record]).encoded()
    let output = try DecodeOutput.render(.bytes(bytes), json: false).get()
    #expect(output.contains(#"text (en, utf-8): \u{1B}[2J\nok"#))
    #expect(!output.contains("\u{1B}"))
}

@Test func emptyMessage() {
    #expect(DecodeOutput.render(.hex(""), json: false) == .success("empty NDEF message (no records)"))
    #expect(DecodeOutput.render(.hex(""), json: true) == .success(#"{"records":[]}"#))
}

@Test(arguments: [
    // A factory-fresh NTAG213: Lock Control TLV, then an empty NDEF TLV.
    ("01 03 A0 0C 34 03 00 FE", #"{"records":[]}"#),
    // Lock Control, NULL, then a URI record, then the terminator.
    (
        "01 03 A0 0C 34 00 03 10 D1 01 0C 55 04 65 78 61 6D 70 6C 65 2E 63 6F 6D FE",
        #"{"records":[{"payload":"046578616d706c652e636f6d","tnf":"well-known","type":"U","uri":"https://example.com"}]}"#
    ),
])
func decodesATypeTwoDataArea(hex: String, expected: String) {
    #expect(DecodeOutput.render(.hex(hex), json: true, tlv: true) == .success(expected))
}

@Test(arguments: [
    ("FE 00 00 00", "no NDEF TLV in the Type 2 data area: the tag holds no NDEF message"),
    ("03 20 D1 01", "Type 2 TLV at byte 16: NDEF length 32 runs past the data area (4 bytes)"),
])
func reportsTypeTwoDataAreaProblems(hex: String, sentence: String) {
    #expect(DecodeOutput.render(.hex(hex), json: false, tlv: true) == .failure(.init(description: sentence)))
}
