import NDEF
import TestSupport
import Testing

@Test(
    arguments: [
        // U first.
        ("91 01 05 55 03612e696f  51 01 05 55 04622e696f", "http://a.io"),
        // Text, then a Smart Poster: the poster's URI.
        ("91 01 05 54 02656e4869  51 02 09 5370 d1 01 05 55 04 622e696f", "https://b.io"),
        // An absolute-URI record before a Smart Poster.
        (
            "93130068747470733a2f2f612e6578616d706c652f7851020e5370d1010a5504622e6578616d706c65",
            "https://a.example/x"
        ),
        // Only MIME and text: none.
        ("91 01 05 54 02656e4869  52 0a 02 746578742f706c61696e 6869", nil),
        ("", nil),
    ] as [(String, String?)])
func tagURIIsTheFirstURI(hex: String, uri: String?) throws {
    #expect(try NDEFMessage(decoding: Hex.bytes(hex)).tagURI == uri)
}

@Test func textsAreTopLevelTextRecordsOnly() throws {
    let message = NDEFMessage(records: [
        try TextRecord(text: "one", language: "en").record,
        SmartPoster(uri: "https://x.io", titles: [try TextRecord(text: "title", language: "en")]).record,
        try TextRecord(text: "two", language: "de", encoding: .utf16).record,
    ])
    #expect(try NDEFMessage(decoding: message.encoded()).texts == ["one", "two"])
}

@Test func mediaAndExternalTypesAreLowerCasedWithoutParameters() {
    let message = NDEFMessage(records: [
        NDEFRecord(tnf: .media, type: Array("Text/Plain; charset=UTF-8".utf8), payload: []),
        NDEFRecord(tnf: .media, type: Array("application/json".utf8), payload: []),
        NDEFRecord(tnf: .external, type: Array("Android.COM:pkg".utf8), payload: Array("a.b".utf8)),
        NDEFRecord(tnf: .external, type: Array("example.com:Thing".utf8), payload: []),
        URIRecord(uri: "https://x.io").record,
    ])
    #expect(message.mediaTypes == ["text/plain", "application/json"])
    #expect(message.externalTypes == ["android.com:pkg", "example.com:thing"])
    #expect(message.records[2].summary.package == "a.b")
}

@Test func summaryFillsTheRecordsShape() {
    let record = NDEFRecord(
        tnf: .external, type: Array("example.com:t".utf8), id: [0xAB, 0x01], payload: [0x00, 0xFF, 0x10])
    #expect(record.summary == RecordSummary(tnf: "external", type: "example.com:t", id: "ab01", payload: "00ff10"))
    let text = try! TextRecord(text: "hé", language: "fr", encoding: .utf16).record.summary
    #expect(text.text == "hé")
    #expect(text.lang == "fr")
    #expect(text.encoding == "utf-16")
    #expect(text.payload == "826672feff006800e9")
}

@Test(arguments: TNF.allCases)
func tnfNames(tnf: TNF) {
    let names = ["empty", "well-known", "media", "absolute-uri", "external", "unknown", "unchanged", "reserved"]
    #expect(tnf.name == names[Int(tnf.rawValue)])
}
