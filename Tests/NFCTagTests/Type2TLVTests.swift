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

@Test(
    arguments: [
        ("E1 10 12 0F", Type2CapabilityContainer?.some(.init(version: 0x10, dataAreaSize: 144, access: 0x0F))),
        ("E1 11 6D 00", .some(.init(version: 0x11, dataAreaSize: 872, access: 0x00))),
        ("00 00 00 00", nil),
        ("E0 10 12 00", nil),
    ] as [(String, Type2CapabilityContainer?)])
func type2CapabilityContainer(bytes: String, cc: Type2CapabilityContainer?) throws {
    #expect(try Type2CapabilityContainer(Hex.bytes(bytes)[...]) == cc)
}

@Test func shortType2CapabilityContainerIsAnError() {
    let error = #expect(throws: NFCTagError.self) { try Type2CapabilityContainer(Hex.bytes("E1 10")[...]) }
    #expect(error?.description == "Type 2 capability container at byte 12: 2 bytes, 4 expected")
}

@Test func type2CapabilityContainerBytesRoundTrip() throws {
    let cc = Type2CapabilityContainer(dataAreaSize: 504, access: 0x0F)
    #expect(cc.bytes == Hex.bytes("E1 10 3F 0F"))
    #expect(try Type2CapabilityContainer(cc.bytes[...]) == cc)
}
