import NDEF
import TestSupport
import Testing

/// Every identifier code, the prefix it expands to (URI RTD, table 3), and a URI whose best encoding uses it.
let uriCodes: [(code: UInt8, prefix: String)] = [
    (0x00, ""), (0x01, "http://www."), (0x02, "https://www."), (0x03, "http://"), (0x04, "https://"),
    (0x05, "tel:"), (0x06, "mailto:"), (0x07, "ftp://anonymous:anonymous@"), (0x08, "ftp://ftp."),
    (0x09, "ftps://"), (0x0A, "sftp://"), (0x0B, "smb://"), (0x0C, "nfs://"), (0x0D, "ftp://"), (0x0E, "dav://"),
    (0x0F, "news:"), (0x10, "telnet://"), (0x11, "imap:"), (0x12, "rtsp://"), (0x13, "urn:"), (0x14, "pop:"),
    (0x15, "sip:"), (0x16, "sips:"), (0x17, "tftp:"), (0x18, "btspp://"), (0x19, "btl2cap://"),
    (0x1A, "btgoep://"), (0x1B, "tcpobex://"), (0x1C, "irdaobex://"), (0x1D, "file://"), (0x1E, "urn:epc:id:"),
    (0x1F, "urn:epc:tag:"), (0x20, "urn:epc:pat:"), (0x21, "urn:epc:raw:"), (0x22, "urn:epc:"), (0x23, "urn:nfc:"),
]

@Test func tableHasAll36Codes() {
    #expect(URIPrefix.all.count == 36)
    #expect(uriCodes.map(\.code) == Array(0...0x23))
}

@Test(arguments: uriCodes)
func decodesEveryIdentifierCode(code: UInt8, prefix: String) throws {
    // "Zq" follows every prefix without extending it into a longer one.
    let payload = [code, 0x5A, 0x71]
    let bytes: [UInt8] = [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
    let message = try NDEFMessage(decoding: bytes)
    #expect(message.tagURI == prefix + "Zq")
    #expect(message.records[0].summary.uri == prefix + "Zq")
    #expect(URIPrefix.prefix(forCode: code) == prefix)
}

@Test(arguments: uriCodes)
func encodesWithTheLongestPrefix(code: UInt8, prefix: String) {
    let record = URIRecord(uri: prefix + "Zq").record
    #expect(record.payload == [code, 0x5A, 0x71])
}

@Test(
    arguments: [
        ("https://www.example.com", 0x02, "example.com"), ("ftp://ftp.x", 0x08, "x"), ("ftp://x", 0x0D, "x"),
        ("urn:epc:id:x", 0x1E, "x"), ("urn:epc:x", 0x22, "x"), ("urn:x", 0x13, "x"), ("HTTPS://x", 0x00, "HTTPS://x"),
        ("spotify:track:1", 0x00, "spotify:track:1"),
    ] as [(String, UInt8, String)])
func picksLongestMatchingPrefix(uri: String, code: UInt8, rest: String) {
    #expect(URIRecord(uri: uri).record.payload == [code] + Array(rest.utf8))
}

@Test(arguments: 0x24...0xFF)
func rejectsReservedCodes(code: Int) {
    #expect(URIPrefix.prefix(forCode: UInt8(code)) == nil)
    #expect(throws: NDEFError.self) { try NDEFMessage(decoding: [0xD1, 0x01, 0x02, 0x55, UInt8(code), 0x61]) }
}
