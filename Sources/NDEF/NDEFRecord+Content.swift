extension NDEFRecord {
    /// What a record holds, interpreted by its TNF and type.
    public enum Content: Sendable, Hashable {
        /// An empty record (TNF 0).
        case empty
        /// A URI record (`U`).
        case uri(URIRecord)
        /// A Text record (`T`).
        case text(TextRecord)
        /// A Smart Poster (`Sp`).
        case smartPoster(SmartPoster)
        /// Another well-known type, by name.
        case wellKnown(type: String)
        /// A media record (TNF 2), by media type as written.
        case media(type: String)
        /// An absolute-URI record (TNF 3): the URI.
        case absoluteURI(String)
        /// An Android Application Record (`android.com:pkg`).
        case androidApplication(AndroidApplicationRecord)
        /// Another external type (TNF 4), `domain:type` as written.
        case external(type: String)
        /// A record of unknown type (TNF 5), or a TNF that never survives decoding (6, 7).
        case unknown
        /// A `U`, `T`, `Sp`, `android.com:pkg` or absolute-URI record whose payload does not hold up; never
        /// seen for records of a decoded message, which fails instead.
        case invalid(NDEFError)
    }

    /// The record interpreted by its TNF and type.
    public var content: Content {
        do {
            return try interpretContent(at: .standalone)
        } catch {
            return .invalid(error)
        }
    }

    /// The type as text (lossy UTF-8).
    public var typeText: String {
        String(decoding: type, as: UTF8.self)
    }

    /// Interprets the record, reporting problems at `location`.
    func interpretContent(at location: RecordLocation) throws(NDEFError) -> Content {
        switch tnf {
        case .empty: return .empty
        case .wellKnown:
            switch type {
            case RecordType.uri:
                let uri = try payload.withUnsafeBufferPointer { bytes throws(NDEFError) in
                    try URIRecord.decode(bytes, at: location)
                }
                return .uri(URIRecord(uri: uri))
            case RecordType.text:
                return .text(
                    try payload.withUnsafeBufferPointer { bytes throws(NDEFError) in
                        try TextRecord.decode(bytes, at: location)
                    })
            case RecordType.smartPoster: return .smartPoster(try SmartPoster.decode(payload, at: location))
            default: return .wellKnown(type: typeText)
            }
        case .media: return .media(type: typeText)
        case .absoluteURI:
            try type.withUnsafeBufferPointer { bytes throws(NDEFError) in
                try RawRecord.validateAbsoluteURI(bytes, at: location)
            }
            return .absoluteURI(typeText)
        case .external:
            if RecordType.equalsIgnoringCase(type, RecordType.androidApplication) {
                return .androidApplication(try AndroidApplicationRecord(self))
            }
            return .external(type: typeText)
        case .unknown, .unchanged, .reserved: return .unknown
        }
    }
}
