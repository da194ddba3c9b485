extension NDEFRecord {
    /// The record in the JSON shape of docs/rules.md, "Records in JSON": TNF name, type text,
    /// lowercase hex ID and payload, and the fields of the kinds this module interprets.
    public var summary: RecordSummary {
        var summary = RecordSummary(
            tnf: tnf.name, type: typeText, id: id.isEmpty ? nil : HexText.string(id), payload: HexText.string(payload))
        switch content {
        case .uri(let record):
            summary.uri = record.uri
        case .text(let record):
            summary.text = record.text
            summary.lang = record.language
            summary.encoding = record.encoding.rawValue
        case .smartPoster(let poster):
            summary.uri = poster.uri
            var titles: [String: String] = [:]
            for title in poster.titles where titles[title.language] == nil { titles[title.language] = title.text }
            summary.titles = titles
            summary.action = poster.action?.name
            summary.records = poster.records.map(\.summary)
        case .absoluteURI(let uri):
            summary.uri = uri
        case .androidApplication(let record):
            summary.package = record.packageName
        case .empty, .wellKnown, .media, .external, .unknown, .invalid:
            break
        }
        return summary
    }
}
