import Foundation
import NDEF
import StateStore
import TagActions
import TagRules
import Testing

@Suite("Event document, event ids, timestamps")
struct EventDocumentTests {
    @Test("the event document has the shape of docs/rules.md, sorted keys, unescaped slashes")
    func documentShape() {
        var record = RecordSummary(tnf: "well-known", type: "U", payload: "04686f6d65")
        record.uri = "https://home.example.com/door"
        var text = RecordSummary(tnf: "well-known", type: "T", payload: "02656e6869")
        text.text = "hi \"there\"\n"
        let document = EventDocument(
            id: "0193b0c2-0000-7000-8000-000000000001",
            time: "2026-11-22T12:00:00.123Z",
            rule: "front-door",
            reader: "ACS ACR122U PICC Interface 00 00",
            tag: .init(uid: "04A1B2C3D4E580", tech: "type2"),
            uri: "https://home.example.com/door",
            records: [record, text],
            haTagID: "04-A1-B2-C3-D4-E5-80"
        )
        #expect(
            document.jsonString()
                == #"{"event":"tap","ha_tag_id":"04-A1-B2-C3-D4-E5-80","id":"0193b0c2-0000-7000-8000-000000000001","#
                + #""presentation_id":"0193b0c2-0000-7000-8000-000000000001","presented_for_ms":0,"#
                + #""reader":"ACS ACR122U PICC Interface 00 00","#
                + #""records":[{"payload":"04686f6d65","tnf":"well-known","type":"U","uri":"https://home.example.com/door"},"#
                + #"{"payload":"02656e6869","text":"hi \"there\"\n","tnf":"well-known","type":"T"}],"#
                + #""rule":"front-door","tag":{"tech":"type2","uid":"04A1B2C3D4E580"},"#
                + #""time":"2026-11-22T12:00:00.123Z","uri":"https://home.example.com/door"}"#
        )
        #expect(document.firstText == "hi \"there\"\n")
    }

    @Test("absent uid and uri are left out")
    func absentFields() {
        let document = EventDocument(id: "i", time: "t", rule: "r", reader: "x", tag: .init(uid: nil, tech: "type4"))
        #expect(
            document.jsonString()
                == #"{"event":"tap","ha_tag_id":"","id":"i","presentation_id":"i","presented_for_ms":0,"reader":"x","#
                + #""records":[],"rule":"r","tag":{"tech":"type4"},"time":"t"}"#)
    }

    @Test("event ids are UUIDv7: version 7, RFC variant, time-ordered")
    func eventIDs() throws {
        let early = EventID.make(at: Date(timeIntervalSince1970: 1_700_000_000))
        let late = EventID.make(at: Date(timeIntervalSince1970: 1_700_000_001))
        for id in [early, late] {
            #expect(id.count == 36)
            #expect(UUID(uuidString: id) != nil)
            #expect(id == id.lowercased())
            #expect(Array(id)[14] == "7")
            #expect("89ab".contains(Array(id)[19]))
        }
        #expect(early.hasPrefix("018bcfe5-6800"))
        #expect(early < late)
        #expect(EventID.make() != EventID.make())
    }

    @Test(
        "RFC 3339 with milliseconds in UTC",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
            (-62_167_219_200_001, "-0001-12-31T23:59:59.999Z"),
        ]
    )
    func rfc3339(milliseconds: Int64, expected: String) {
        #expect(Timestamp.rfc3339(milliseconds: milliseconds) == expected)
    }
}
