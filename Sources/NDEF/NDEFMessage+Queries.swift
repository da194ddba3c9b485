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

    /// How many UTF-8 bytes at the start of ``tagURI`` the tag did not store as text: the prefix its URI record's
    /// identifier code stands for (`https://` for code 0x04), 0 for an absolute-URI record, a code 0x00 or no URI.
    /// The text the tag stores starts right after them: an NTAG 424 DNA's SUN MAC covers it from there
    /// (docs/doors.md, "What a SUN message proves").
    public var tagURIPrefixLength: Int {
        func prefixLength(_ record: NDEFRecord) -> Int {
            guard record.tnf == .wellKnown, record.type == RecordType.uri, let code = record.payload.first else {
                return 0
            }
            return URIPrefix.prefix(forCode: code)?.utf8.count ?? 0
        }
        for record in records {
            switch record.content {
            case .uri: return prefixLength(record)
            case .smartPoster(let poster):
                return poster.records.first { $0.tnf == .wellKnown && $0.type == RecordType.uri }.map(prefixLength) ?? 0
            case .absoluteURI: return 0
            default: continue
            }
        }
        return 0
    }

    /// The message with the record that holds ``tagURI`` holding `uri` instead (a Smart Poster keeps its titles,
    /// action, size, type and icons); the message itself when it has no URI. For showing a tag without a secret
    /// its URI carries (docs/doors.md, "What a SUN message proves").
    /// - Parameter uri: the URI to put in place.
    /// - Returns: the message.
    public func replacingTagURI(with uri: String) -> NDEFMessage {
        var records = records
        for (index, record) in records.enumerated() {
            switch record.content {
            case .uri:
                records[index] = URIRecord(uri: uri).record
                records[index].id = record.id
            case .smartPoster(let poster):
                records[index] =
                    SmartPoster(
                        uri: uri, titles: poster.titles, action: poster.action, size: poster.size, type: poster.type,
                        icons: poster.icons
                    ).record
                records[index].id = record.id
            case .absoluteURI:
                records[index] = NDEFRecord(
                    tnf: .absoluteURI, type: Array(uri.utf8), id: Array(record.id), payload: Array(record.payload))
            default: continue
            }
            return NDEFMessage(records: records)
        }
        return self
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
