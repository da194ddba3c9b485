import TagRules

/// A synthetic but typical rules file: exact domains, wildcard domains and schemes, most with components, and a
/// few UID rules; plus tag events that hit and miss them.
enum RuleCorpus {
    /// The YAML text of `ruleCount` rules.
    static func yaml(ruleCount: Int) -> String {
        var text = "version: 1\nsubstitutionVariables:\n  room: [kitchen, hall, garage, office]\nrules:\n"
        for index in 0..<ruleCount {
            text += "  - name: rule-\(index)\n    match:\n"
            switch index % 10 {
            case 0, 1, 2, 3:
                text += """
                          domains: [host\(index).example.com]
                          components:
                            - {"/": "/private/*", exclude: true}
                            - {"/": "/door/$(room)", "?": {key: "?*"}}
                            - {"/": "/items/*.pdf"}

                    """
            case 4, 5, 6:
                text += """
                          domains: ["*.zone\(index).example.net"]
                          components:
                            - {"/": "/t/*", "#": "*"}

                    """
            case 7, 8:
                text += "      schemes: [app\(index)]\n      domains: [open]\n"
            default:
                text += "      uid: [\(String(format6(index)))]\n"
            }
            text += "    open: \"{uri}\"\n"
        }
        return text
    }

    /// Events for the rule set of `ruleCount` rules: hits on each kind of rule and misses.
    static func events(ruleCount: Int) -> [TagEvent] {
        let last = ruleCount - 10
        let uris = [
            "https://host\(last).example.com/door/kitchen?key=1234",
            "https://host\(last + 1).example.com/items/report.2026.pdf",
            "https://host\(last + 2).example.com/private/x",
            "https://a.b.zone\(last + 4).example.net/t/1#top",
            "app\(last + 7)://open/thing",
            "https://unknown.example.org/some/path?x=1",
            "https://www.example.com/",
            "spotify:track:6rqhFgbbKwnb9MLmUQDhG6",
        ]
        return uris.map { TagEvent(uid: "04A1B2C3D4E580", reader: "ACS ACR122U", tech: "type2", uri: $0) }
    }

    private static func format6(_ index: Int) -> String {
        let hex = String(index, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
}
