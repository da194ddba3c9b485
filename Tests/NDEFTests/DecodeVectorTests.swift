import NDEF
import TestSupport
import Testing

/// Hand-assembled messages for every record kind, with the records they hold.
let decodeVectors: [DecodeVector] = [
    DecodeVector(
        name: "URI, short record", hex: "d1010c55046578616d706c652e636f6d",
        records: [expected("well-known", "U", payload: "046578616d706c652e636f6d", uri: "https://example.com")]),
    DecodeVector(
        name: "URI with an ID", hex: "d9 01 04 01 55 31 05313233",
        records: [expected("well-known", "U", id: "31", payload: "05313233", uri: "tel:123")]),
    DecodeVector(
        name: "URI, long record (SR clear)", hex: "c1 01 00000004 55 03612f62",
        records: [expected("well-known", "U", payload: "03612f62", uri: "http://a/b")]),
    DecodeVector(
        name: "Text, UTF-8", hex: "d1 01 08 54 02656e48656c6c6f",
        records: [
            expected("well-known", "T", payload: "02656e48656c6c6f", text: "Hello", lang: "en", encoding: "utf-8")
        ]),
    DecodeVector(
        name: "Text, UTF-16 without BOM is big-endian", hex: "d1 01 07 54 82646500480069",
        records: [
            expected("well-known", "T", payload: "82646500480069", text: "Hi", lang: "de", encoding: "utf-16")
        ]),
    DecodeVector(
        name: "Text, UTF-16 little-endian with BOM", hex: "d1 01 09 54 826465fffe48006900",
        records: [
            expected("well-known", "T", payload: "826465fffe48006900", text: "Hi", lang: "de", encoding: "utf-16")
        ]),
    DecodeVector(
        name: "Text, UTF-16 big-endian with BOM", hex: "d1 01 09 54 826465feff00480069",
        records: [
            expected("well-known", "T", payload: "826465feff00480069", text: "Hi", lang: "de", encoding: "utf-16")
        ]),
    DecodeVector(
        name: "Text, UTF-16 surrogate pair", hex: "d1 01 09 54 82656ed83dde000021",
        records: [
            expected("well-known", "T", payload: "82656ed83dde000021", text: "😀!", lang: "en", encoding: "utf-16")
        ]),
    DecodeVector(
        name: "Text, empty text", hex: "d1 01 06 54 05656e2d4742",
        records: [expected("well-known", "T", payload: "05656e2d4742", text: "", lang: "en-GB", encoding: "utf-8")]),
    DecodeVector(
        name: "MIME", hex: "d2 0a 02 746578742f706c61696e 6869",
        records: [expected("media", "text/plain", payload: "6869")]),
    DecodeVector(
        name: "absolute URI", hex: "d3 15 00 68747470733a2f2f6578616d706c652e636f6d2f74",
        records: [expected("absolute-uri", "https://example.com/t", payload: "", uri: "https://example.com/t")]),
    DecodeVector(
        name: "Android Application Record",
        hex: "d4 0f 0f 616e64726f69642e636f6d3a706b67 636f6d2e6578616d706c652e617070",
        records: [
            expected(
                "external", "android.com:pkg", payload: "636f6d2e6578616d706c652e617070", package: "com.example.app")
        ]),
    DecodeVector(
        name: "external type", hex: "d4 09 01 6162632e64653a7879 ff",
        records: [expected("external", "abc.de:xy", payload: "ff")]),
    DecodeVector(name: "empty record", hex: "d0 00 00", records: [expected("empty", "", payload: "")]),
    DecodeVector(name: "unknown type", hex: "d5 00 02 abcd", records: [expected("unknown", "", payload: "abcd")]),
    DecodeVector(
        name: "other well-known type", hex: "d1 02 01 4873 12", records: [expected("well-known", "Hs", payload: "12")]),
    DecodeVector(
        name: "chunked URI in three chunks", hex: "b1 01 02 55 0465  36 00 03 78616d  56 00 03 706c65",
        records: [expected("well-known", "U", payload: "046578616d706c65", uri: "https://example")]),
    DecodeVector(
        name: "chunked with an ID on the first chunk and a long middle chunk",
        hex: "b9 01 02 01 55 41 0461  26 00 00000002 2e62  56 00 01 63",
        records: [expected("well-known", "U", id: "41", payload: "04612e6263", uri: "https://a.bc")]),
    DecodeVector(
        name: "three records",
        hex: "91 01 05 55 03612e696f  11 01 05 54 02656e4869  52 10 02 6170706c69636174696f6e2f6a736f6e 7b7d",
        records: [
            expected("well-known", "U", payload: "03612e696f", uri: "http://a.io"),
            expected("well-known", "T", payload: "02656e4869", text: "Hi", lang: "en", encoding: "utf-8"),
            expected("media", "application/json", payload: "7b7d"),
        ]),
    DecodeVector(
        name: "Smart Poster with a title and an action",
        hex: "d1 02 23 5370 91010c55046578616d706c652e636f6d 1101085402656e48656c6c6f 51030161637400",
        records: [
            expected(
                "well-known", "Sp",
                payload: "91010c55046578616d706c652e636f6d1101085402656e48656c6c6f51030161637400",
                uri: "https://example.com", titles: ["en": "Hello"], action: "open",
                records: [
                    expected("well-known", "U", payload: "046578616d706c652e636f6d", uri: "https://example.com"),
                    expected(
                        "well-known", "T", payload: "02656e48656c6c6f", text: "Hello", lang: "en", encoding: "utf-8"),
                    expected("well-known", "act", payload: "00"),
                ])
        ]),
    DecodeVector(
        name: "empty message", hex: "", records: []),
]

@Test(arguments: decodeVectors)
func decodesVector(_ vector: DecodeVector) throws {
    let message = try NDEFMessage(decoding: Hex.bytes(vector.hex))
    #expect(message.records.map(\.summary) == vector.records)
}

@Test func smartPosterWithThreeTitlesSizeTypeAndIcon() throws {
    let hex =
        "d10271537091011155026578616d706c652e636f6d2f6d656e751101075402656e4d656e7511010e54026465537065697365"
        + "6b6172746511010f54826672feff004300610072007400651103016163740211010473000004d211010974746578742f68746d"
        + "6c520904696d6167652f706e6789504e47"
    let message = try NDEFMessage(decoding: Hex.bytes(hex))
    let poster = try SmartPoster(#require(message.records.first))
    #expect(poster.uri == "https://www.example.com/menu")
    #expect(poster.titles.map(\.language) == ["en", "de", "fr"])
    #expect(poster.titles.map(\.text) == ["Menu", "Speisekarte", "Carte"])
    #expect(poster.titles.map(\.encoding) == [.utf8, .utf8, .utf16])
    #expect(poster.action == .edit)
    #expect(poster.size == 1234)
    #expect(poster.type == "text/html")
    #expect(
        poster.icons == [NDEFRecord(tnf: .media, type: Array("image/png".utf8), payload: [0x89, 0x50, 0x4E, 0x47])])
    #expect(poster.records.count == 8)
    let summary = message.records[0].summary
    #expect(summary.titles == ["en": "Menu", "de": "Speisekarte", "fr": "Carte"])
    #expect(summary.action == "edit")
    #expect(message.tagURI == "https://www.example.com/menu")
}

@Test func decodesFromAnySlice() throws {
    let bytes = Hex.bytes("ffff d1010c55046578616d706c652e636f6d ffff")
    let message = try NDEFMessage(decoding: bytes[2..<(bytes.count - 2)])
    #expect(message.tagURI == "https://example.com")
    let lazy = try NDEFMessage(decoding: bytes[2..<(bytes.count - 2)].lazy.map { $0 })
    #expect(lazy == message)
}
