import PCSC
import Testing

struct PCSCErrorTests {
    /// Errors and their descriptions (typed: an untyped literal of tuples took the compiler seconds).
    static let descriptions: [(PCSCError, String)] = [
        (
            PCSCError(call: "SCardTransmit", reader: "Virtual PCD 00 00", code: 0x8010_0069),
            "reader \"Virtual PCD 00 00\": SCardTransmit failed with SCARD_W_REMOVED_CARD (0x80100069): the card was "
                + "removed"
        ),
        (
            PCSCError(call: "SCardEstablishContext", code: 0x8010_001D),
            "SCardEstablishContext failed with SCARD_E_NO_SERVICE (0x8010001D): pcscd is not running"
        ),
        (
            PCSCError(call: "SCardConnect", reader: "ACS ACR122U 00 00", code: 0x8010_006A),
            "reader \"ACS ACR122U 00 00\": SCardConnect failed with SCARD_W_SECURITY_VIOLATION (0x8010006A): access "
                + "was refused; pcscd refused this user: if pcscd uses polkit, grant "
                + "org.debian.pcsc-lite.access_pcsc and org.debian.pcsc-lite.access_card to this user (see "
                + "contrib/polkit)"
        ),
        (
            PCSCError(call: "SCardListReaders", code: 0x8010_0031),
            "SCardListReaders failed with SCARD_E_SERVER_TOO_BUSY (0x80100031)"
        ),
        (PCSCError(call: "SCardStatus", code: 0x1234), "SCardStatus failed with unknown code (0x00001234)"),
    ]

    @Test(arguments: descriptions)
    func descriptionIsOneSentenceNamingReaderCallAndCode(error: PCSCError, expected: String) {
        #expect(error.description == expected)
    }

    @Test(arguments: [
        (0x8010_0069 as UInt32, true, false),
        (0x8010_0068, true, false),
        (0x8010_0016, true, false),
        (0x8010_0017, true, false),
        (0x8010_0013, true, true),
        (0x8010_001D, false, true),
        (0x8010_0003, false, true),
        (0x8010_000B, false, false),
    ])
    func classifiesCardGoneAndServiceLost(code: UInt32, isCardGone: Bool, isServiceLost: Bool) {
        let error = PCSCError(call: "SCardTransmit", code: code)
        #expect(error.isCardGone == isCardGone)
        #expect(error.isServiceLost == isServiceLost)
    }
}
