import NDEF
import Testing

/// Builds an expected summary in one expression.
func expected(
    _ tnf: String, _ type: String, id: String? = nil, payload: String, uri: String? = nil, text: String? = nil,
    lang: String? = nil, encoding: String? = nil, titles: [String: String]? = nil, action: String? = nil,
    records: [RecordSummary]? = nil, package: String? = nil
) -> RecordSummary {
    var summary = RecordSummary(tnf: tnf, type: type, id: id, payload: payload)
    summary.uri = uri
    summary.text = text
    summary.lang = lang
    summary.encoding = encoding
    summary.titles = titles
    summary.action = action
    summary.records = records
    summary.package = package
    return summary
}

/// A hex vector and the records it must decode to.
struct DecodeVector: Sendable, CustomTestStringConvertible {
    var name: String
    var hex: String
    var records: [RecordSummary]

    var testDescription: String { name }
}
