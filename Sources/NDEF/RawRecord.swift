/// A record as the parser sees it: views into the message bytes (or into a reassembled chunk buffer), valid only
/// during the visit.
struct RawRecord {
    var tnf: TNF
    var type: UnsafeBufferPointer<UInt8>
    var id: UnsafeBufferPointer<UInt8>
    var payload: UnsafeBufferPointer<UInt8>
    var location: RecordLocation

    /// The record as a value; the common well-known types share one array instead of allocating.
    func copied() -> NDEFRecord {
        let typeBytes: [UInt8]
        if tnf == .wellKnown && type.elementsEqual(RecordType.uri) {
            typeBytes = RecordType.uri
        } else if tnf == .wellKnown && type.elementsEqual(RecordType.text) {
            typeBytes = RecordType.text
        } else if tnf == .wellKnown && type.elementsEqual(RecordType.smartPoster) {
            typeBytes = RecordType.smartPoster
        } else {
            typeBytes = Array(type)
        }
        return NDEFRecord(tnf: tnf, type: typeBytes, id: id.isEmpty ? [] : Array(id), payload: Array(payload))
    }

    /// Checks the content a decoder must reject, without allocating (except for chunked Smart Poster content).
    func validateContent() throws(NDEFError) {
        switch tnf {
        case .wellKnown:
            if type.elementsEqual(RecordType.uri) {
                try URIRecord.validate(payload, at: location)
            } else if type.elementsEqual(RecordType.text) {
                try TextRecord.validate(payload, at: location)
            } else if type.elementsEqual(RecordType.smartPoster) {
                try SmartPoster.validate(payload, at: location)
            }
        case .absoluteURI:
            try Self.validateAbsoluteURI(type, at: location)
        case .external where RecordType.equalsIgnoringCase(type, RecordType.androidApplication):
            _ = try AndroidApplicationRecord.validate(payload, at: location)
        default:
            break
        }
    }

    /// Checks that an absolute-URI type is UTF-8 without control characters.
    static func validateAbsoluteURI(_ type: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError) {
        if UnicodeValidation.firstInvalidUTF8(type) != nil {
            throw NDEFError(
                code: .invalidURI, record: location.record, offset: location.header,
                message: "absolute URI type is not valid UTF-8")
        }
        if type.contains(where: { $0 < 0x20 }) {
            throw NDEFError(
                code: .invalidURI, record: location.record, offset: location.header,
                message: "absolute URI type holds a control character")
        }
    }
}
