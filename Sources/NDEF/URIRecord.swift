/// A URI record (well-known type `U`): an identifier code abbreviating a prefix, then the rest of the URI in UTF-8.
public struct URIRecord: Sendable, Hashable {
    /// The expanded URI (identifier code applied).
    public var uri: String

    /// Creates a URI record.
    /// - Parameter uri: the full URI; ``record`` abbreviates it with the longest matching prefix.
    public init(uri: String) {
        self.uri = uri
    }

    /// Reads a URI record.
    /// - Parameter record: a well-known `U` record.
    /// - Throws: ``NDEFError`` with code `invalidURI` when the record is not a `U` record, its payload is empty or
    ///   holds only the identifier code, the code is above 0x23, or the text is not UTF-8 or holds a control
    ///   character. Offsets are relative to the payload.
    public init(_ record: NDEFRecord) throws(NDEFError) {
        guard record.tnf == .wellKnown, record.type == RecordType.uri else {
            throw RecordLocation.standalone.error(.invalidURI, at: 0, "the record is not a URI record (type U)")
        }
        self.uri = try record.payload.withUnsafeBufferPointer { payload throws(NDEFError) in
            try Self.decode(payload, at: .standalone)
        }
    }

    /// The record, with the longest identifier prefix that matches the URI.
    public var record: NDEFRecord {
        let (code, length) = URIPrefix.longestMatch(for: uri)
        var payload: [UInt8] = [code]
        payload.append(contentsOf: uri.utf8.dropFirst(length))
        return NDEFRecord(tnf: .wellKnown, type: RecordType.uri, payload: payload)
    }

    /// Checks a `U` payload without allocating.
    static func validate(_ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError) {
        guard let code = payload.first else {
            throw location.error(.invalidURI, at: 0, "URI record has an empty payload")
        }
        guard Int(code) < URIPrefix.all.count else {
            throw location.error(
                .invalidURI, at: 0, "URI identifier code \(HexText.byte(code)) is reserved (0x00 to 0x23 are defined)")
        }
        guard payload.count > 1 else {
            throw location.error(
                .invalidURI, at: 0, "URI record holds only its identifier code \(HexText.byte(code)) and no URI text")
        }
        if let bad = UnicodeValidation.firstInvalidUTF8(payload, from: 1) {
            throw location.error(.invalidURI, at: bad, "URI text is not valid UTF-8")
        }
        if let control = payload.dropFirst().firstIndex(where: { $0 < 0x20 }) {
            throw location.error(
                .invalidURI, at: control, "URI text holds the control character \(HexText.byte(payload[control]))")
        }
    }

    /// Checks and expands a `U` payload.
    static func decode(_ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError) -> String {
        try validate(payload, at: location)
        return URIPrefix.all[Int(payload[0])] + String(decoding: payload[1...], as: UTF8.self)
    }
}
