import TagRules
import Testing

/// The index must never change what matches: compare with a plain scan of every rule in order.
@Test func indexAgreesWithALinearScan() throws {
    let yaml = """
        version: 1
        rules:
          - {name: exact, match: {domains: [a.example.com]}, continue: true, open: x}
          - {name: wild, match: {domains: ['*.example.com']}, continue: true, open: x}
          - {name: apex, match: {domains: [example.com, 'B.Example.com:8443']}, continue: true, open: x}
          - {name: myapp, match: {schemes: [myapp], domains: [open, '*.open']}, continue: true, open: x}
          - {name: scheme, match: {schemes: [spotify, HTTPS]}, continue: true, open: x}
          - {name: uid, match: {uid: ['01:02']}, continue: true, open: x}
          - {name: uid-and-host, match: {uid: ['0102'], domains: [example.com]}, continue: true, open: x}
          - {name: text, match: {text: 'x*'}, continue: true, open: x}
          - {name: reader, match: {reader: '*Desk*'}, continue: true, open: x}
          - {name: idn, match: {domains: ['*.bücher.example']}, continue: true, open: x}
          - {name: any, match: {any: true}, continue: true, open: x}
        """
    let ruleSet = try RuleSet.load(files: [("i.yaml", yaml)], environment: [:]).get()
    let uris: [String?] = [
        nil, "https://a.example.com/", "http://a.example.com/", "https://x.a.example.com", "https://example.com",
        "https://b.example.com:8443/", "https://b.example.com/", "myapp://open/x", "myapp://x.open/x", "MYAPP://OPEN",
        "spotify:track:1", "ftp://a.example.com/", "https://www.xn--bcher-kva.example/", "https://www.bücher.example",
        "not a uri", "https://exa mple.com",
    ]
    for uri in uris {
        for uid in [nil, "0102", "0103"] as [String?] {
            for reader in ["Desk 1", "Door"] {
                let event = TagEvent(uid: uid, reader: reader, tech: "type2", uri: uri, texts: ["xyz"])
                let linear = ruleSet.rules.filter { $0.matches(event) }.map(\.name)
                #expect(ruleSet.match(event).map(\.rule.name) == linear, "\(uri ?? "nil") \(uid ?? "nil") \(reader)")
            }
        }
    }
}
