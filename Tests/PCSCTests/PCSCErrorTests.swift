import PCSC
import Testing

@Test func errorNamesReaderCallAndCode() {
    let error = PCSCError(call: "SCardConnect", reader: "Virtual PCD 00 00", code: 0x8010_0069)
    #expect(error.description == "reader \"Virtual PCD 00 00\": SCardConnect failed: 0x80100069")
    #expect(
        PCSCError(call: "SCardEstablishContext", code: 0x8010_001D).description
            == "SCardEstablishContext failed: 0x8010001D")
}
