extension NDEFMessage {
    /// The tag's URI (docs/rules.md, "The tag's URI"): the first URI in message order among well-known `U` records, the `U` record
    /// nested in a Smart Poster, and absolute-URI (TNF 3) records; `nil` if there is none.
    public var tagURI: String? {
        for record in records {
            switch record.content {
            case .uri(let uri): return uri.uri
            case .smartPoster(let poster): return poster.uri
            case .absoluteURI(let uri): return uri
            default: continue
            }
        }
        return nil
    }

    /// The texts of the top-level Text records, in order (Smart Poster titles are not included).
    public var texts: [String] {
        records.compactMap { record in
            if case .text(let text) = record.content { text.text } else { nil }
        }
    }

    /// The media types of the TNF 2 records, lower-cased, without parameters (`text/plain; charset=utf-8` gives
    /// `text/plain`).
    public var mediaTypes: [String] {
        records.filter { $0.tnf == .media }.map { record in
            let essence = record.type.prefix { $0 != UInt8(ascii: ";") }.map(RecordType.lowercased)
            var text = Substring(String(decoding: essence, as: UTF8.self))
            while text.last == " " || text.last == "\t" { text.removeLast() }
            while text.first == " " || text.first == "\t" { text.removeFirst() }
            return String(text)
        }
    }

    /// The external types (TNF 4) of the records, lower-cased, such as `android.com:pkg`.
    public var externalTypes: [String] {
        records.filter { $0.tnf == .external }.map {
            String(decoding: $0.type.map(RecordType.lowercased), as: UTF8.self)
        }
    }
}
