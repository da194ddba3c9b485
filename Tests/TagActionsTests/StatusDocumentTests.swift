import Foundation
import TagActions
import Testing

/// The status document's JSON (docs/fleet.md, "The status document"): every field, `null` where there is nothing to
/// say, and the last will with the state alone.
@Suite struct StatusDocumentTests {
    @Test func theLastWillIsTheStateAlone() {
        #expect(String(decoding: StatusDocument.will.payload(), as: UTF8.self) == #"{"state":"offline"}"#)
    }

    @Test func aFullDocumentHasEveryFieldAndReadsBack() throws {
        let document = StatusDocument(
            state: "online", version: "0.1.0", bundle: nil,
            refusedBundle: .init(
                version: nil, reason: "format", error: "s: byte 0: not a TagRouter bundle", source: "s",
                at: "2026-11-29T10:00:00.000Z"),
            readers: [.init(name: "Door", state: "tag-present")], outbox: 3,
            clock: .init(synchronized: false, source: "adjtimex"), uptime: 61,
            lockouts: [.init(reader: "Door", rule: "front", until: "2026-11-29T10:05:00.000Z")],
            updated: "2026-11-29T10:00:01.000Z")
        let text = String(decoding: document.payload(), as: UTF8.self)
        #expect(
            text == #"{"bundle":null,"clock":{"source":"adjtimex","synchronized":false},"lockouts":[{"reader":"Door","#
                + #""rule":"front","until":"2026-11-29T10:05:00.000Z"}],"outbox":3,"readers":[{"name":"Door","state":"#
                + #""tag-present"}],"refusedBundle":{"at":"2026-11-29T10:00:00.000Z","error":"s: byte 0: not a "#
                + #"TagRouter bundle","reason":"format","source":"s","version":null},"state":"online","updated":"#
                + #""2026-11-29T10:00:01.000Z","uptime":61,"version":"0.1.0"}"#)
        #expect(try JSONDecoder().decode(StatusDocument.self, from: Data(document.payload())) == document)
        #expect(document.offline.state == "offline" && document.offline.bundle == nil)
    }
}
