import NDEF
import TestSupport
import Testing

/// One record of every kind, built through the typed views.
let roundTripRecords: [NDEFRecord] = [
    URIRecord(uri: "https://example.com/door?key=1").record,
    URIRecord(uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC").record,
    URIRecord(uri: "https://bücher.example/ü").record,
    try! TextRecord(text: "Hello, wörld 🎉", language: "en").record,
    try! TextRecord(text: "Grüezi 😀", language: "de-CH", encoding: .utf16).record,
    SmartPoster(
        uri: "https://example.com/menu",
        titles: [try! TextRecord(text: "Menu", language: "en"), try! TextRecord(text: "Carte", language: "fr")],
        action: .save, size: 4096, type: "text/html",
        icons: [NDEFRecord(tnf: .media, type: Array("image/png".utf8), payload: [0x89, 0x50])]
    ).record,
    SmartPoster(uri: "tel:+15551234").record,
    AndroidApplicationRecord(packageName: "com.example.app").record,
    NDEFRecord(tnf: .media, type: Array("application/json".utf8), payload: Array(#"{"a":1}"#.utf8)),
    NDEFRecord(tnf: .absoluteURI, type: Array("https://example.com/schema".utf8), payload: [1, 2]),
    NDEFRecord(tnf: .external, type: Array("example.com:thing".utf8), id: [0x41], payload: [0xFF]),
    NDEFRecord(tnf: .unknown, type: [], payload: [0, 1, 2]),
    NDEFRecord(tnf: .empty, type: [], payload: []),
    NDEFRecord(tnf: .media, type: Array("application/octet-stream".utf8), payload: Array(repeating: 7, count: 300)),
]

@Test(arguments: roundTripRecords)
func roundTripsOneRecord(_ record: NDEFRecord) throws {
    let message = NDEFMessage(records: [record])
    #expect(try NDEFMessage(decoding: message.encoded()) == message)
}

@Test func roundTripsEveryKindInOneMessage() throws {
    let message = NDEFMessage(records: roundTripRecords)
    let bytes = try message.encoded()
    #expect(try NDEFMessage(decoding: bytes) == message)
    #expect(bytes.first == 0x91)  // MB, SR, well-known
}

@Test func typedViewsReadBackWhatTheyWrote() throws {
    #expect(try URIRecord(roundTripRecords[2]).uri == "https://bücher.example/ü")
    let text = try TextRecord(roundTripRecords[4])
    #expect(text.text == "Grüezi 😀")
    #expect(text.language == "de-CH")
    #expect(text.encoding == .utf16)
    let poster = try SmartPoster(roundTripRecords[5])
    #expect(poster.uri == "https://example.com/menu")
    #expect(poster.titles.map(\.text) == ["Menu", "Carte"])
    #expect(poster.action == .save)
    #expect(poster.size == 4096)
    #expect(poster.type == "text/html")
    #expect(poster.icons.count == 1)
    #expect(try AndroidApplicationRecord(roundTripRecords[7]).packageName == "com.example.app")
}

@Test func longPayloadUsesTheLongForm() throws {
    let bytes = try NDEFMessage(records: [roundTripRecords.last!]).encoded()
    #expect(Array(bytes.prefix(6)) == [0xC2, 0x18, 0x00, 0x00, 0x01, 0x2C])
}

@Test func emptyMessageEncodesToNothing() throws {
    #expect(try NDEFMessage(records: []).encoded() == [])
    #expect(try NDEFMessage(decoding: []).records.isEmpty)
}

@Test(arguments: [
    (
        NDEFRecord(tnf: .unchanged, type: [], payload: []),
        "record 0 at byte 0: TNF 6 (unchanged) cannot be encoded"
    ),
    (
        NDEFRecord(tnf: .empty, type: [], payload: [1]),
        "record 0 at byte 0: an empty record (TNF 0) cannot have a type, ID or payload"
    ),
    (
        NDEFRecord(tnf: .media, type: Array(repeating: 0x61, count: 256), payload: []),
        "record 0 at byte 0: type (256 bytes) or ID (0 bytes) exceeds 255 bytes"
    ),
])
func refusesUnencodableRecords(record: NDEFRecord, sentence: String) {
    do {
        let bytes = try NDEFMessage(records: [record]).encoded()
        Issue.record("encoded \(bytes.count) bytes instead of failing")
    } catch {
        #expect(error.description == sentence)
        #expect(error.code == .unencodable)
    }
}

@Test func textRecordRefusesBadLanguageCodes() {
    #expect(throws: NDEFError.self) { try TextRecord(text: "x", language: "") }
    #expect(throws: NDEFError.self) { try TextRecord(text: "x", language: String(repeating: "a", count: 64)) }
    #expect(throws: NDEFError.self) { try TextRecord(text: "x", language: "dé") }
}

@Test func typedViewsRefuseOtherRecords() {
    let mime = NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: [])
    #expect(throws: NDEFError.self) { try URIRecord(mime) }
    #expect(throws: NDEFError.self) { try TextRecord(mime) }
    #expect(throws: NDEFError.self) { try SmartPoster(mime) }
    #expect(throws: NDEFError.self) { try AndroidApplicationRecord(mime) }
    let badURI = NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x99, 0x61])
    if case .invalid(let error) = badURI.content {
        #expect(
            error.description == "record 0 at byte 0: URI identifier code 0x99 is reserved (0x00 to 0x23 are defined)")
    } else {
        Issue.record("a URI record with code 0x99 was interpreted")
    }
}

@Test(arguments: decodeVectors)
func decodedMessagesReencodeToTheSameRecords(_ vector: DecodeVector) throws {
    // Chunked input comes back unchunked, long records whose payload fits come back short: same records.
    let message = try NDEFMessage(decoding: Hex.bytes(vector.hex))
    #expect(try NDEFMessage(decoding: message.encoded()) == message)
}
