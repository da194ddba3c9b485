import NFCTag
import TestSupport
import Testing

@Test(
    arguments: [
        ("01 03 A0 0C 34 03 00 FE 00 00 00 00", TagReading.Content.empty),
        ("03 03 D1 01 00 FE", .message(Hex.bytes("D1 01 00"))),
        ("00 00 FE 03 03 D1 01 00", .absent),
        ("", .absent),
        ("00 00 00 00", .absent),
    ] as [(String, TagReading.Content)])
func dataAreaWalk(dataArea: String, content: TagReading.Content) throws {
    #expect(try Type2TLV.ndefMessage(inDataArea: Hex.bytes(dataArea)) == content)
}

@Test(
    arguments: [
        ("03", "Type 2 TLV at byte 16: NDEF length is cut off by the end of the data area (1 bytes)"),
        ("00 03 FF 01", "Type 2 TLV at byte 17: NDEF length is cut off by the end of the data area (4 bytes)"),
        ("03 05 D1 01 00", "Type 2 TLV at byte 16: NDEF length 5 runs past the data area (5 bytes)"),
    ])
func dataAreaWalkErrors(dataArea: String, text: String) throws {
    let error = #expect(throws: NFCTagError.self) { try Type2TLV.ndefMessage(inDataArea: Hex.bytes(dataArea)) }
    #expect(error?.code == .malformedTLV)
    #expect(error?.description == text)
}
