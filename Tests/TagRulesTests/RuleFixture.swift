import TagRules

/// Builds rule files for tests.
enum RuleFixture {
    /// A one-rule file whose `match` is `match` (YAML flow or block text, indented by the caller).
    static func file(match: String, defaults: String = "", variables: String = "") -> String {
        """
        version: 1
        \(defaults)
        \(variables)
        rules:
          - name: r
            match: \(match)
            open: "{uri}"
        """
    }

    /// Loads in-memory files, recording an issue for every error diagnostic.
    static func load(_ text: String, environment: [String: String] = [:], name: String = "rules.yaml") -> LoadResult {
        RuleSet.load(files: [(name, text)], environment: environment)
    }

    /// An event with a URI (and optional fields).
    static func event(
        uri: String?, uid: String? = nil, reader: String = "cli", tech: String = "type2", texts: [String] = [],
        mediaTypes: [String] = [], externalTypes: [String] = []
    ) -> TagEvent {
        TagEvent(
            uid: uid, reader: reader, tech: tech, uri: uri, texts: texts, mediaTypes: mediaTypes,
            externalTypes: externalTypes)
    }
}
