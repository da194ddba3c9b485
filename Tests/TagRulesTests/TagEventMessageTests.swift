import NDEF
import TagRules
import Testing

@Test func eventFromAMessageFeedsTheRules() throws {
    let message = NDEFMessage(records: [
        try TextRecord(text: "light on", language: "en").record,
        NDEFRecord(tnf: .absoluteURI, type: Array("https://first.example/a".utf8), payload: []),
        URIRecord(uri: "https://second.example/b").record,
        NDEFRecord(tnf: .media, type: Array("Text/VCard; charset=utf-8".utf8), payload: Array("BEGIN:VCARD".utf8)),
        NDEFRecord(tnf: .external, type: Array("Android.com:pkg".utf8), payload: Array("org.example".utf8)),
    ])
    let event = TagEvent(uid: "04a1b2c3d4e580", reader: "Desk", tech: "type2", message: message)
    #expect(event.uri == "https://first.example/a")
    #expect(event.uid == "04A1B2C3D4E580")
    #expect(event.texts == ["light on"])
    #expect(event.mediaTypes == ["text/vcard"])
    #expect(event.externalTypes == ["android.com:pkg"])
    let yaml = """
        version: 1
        rules:
          - {name: second, match: {domains: [second.example]}, open: x}
          - {name: all, match: {domains: [first.example], text: 'light *', mime: [text/vcard], external: ['android.com:pkg'], uid: ['04:A1:B2:C3:D4:E5:80']}, open: x}
        """
    let ruleSet = try RuleSet.load(files: [("m.yaml", yaml)], environment: [:]).get()
    #expect(ruleSet.match(event).map(\.rule.name) == ["all"])
}
