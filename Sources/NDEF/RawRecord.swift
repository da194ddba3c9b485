/// A record as the parser sees it: views into the message bytes (or into a reassembled chunk buffer), valid only
/// during the visit, and where they are.
struct RawRecord {
    var tnf: TNF
    /// The offset of the type in the parser's bytes (the ID and the payload follow it), `nil` for a record
    /// reassembled from chunks.
    var start: Int?
    /// The type, ID and payload of a record reassembled from chunks, which the buffers point into.
    var reassembled: [UInt8]?
    var type: UnsafeBufferPointer<UInt8>
    var id: UnsafeBufferPointer<UInt8>
    var payload: UnsafeBufferPointer<UInt8>
    var location: RecordLocation

    /// The record as a value sharing `storage`, the bytes the parser walks, or the reassembled bytes: nothing is
    /// copied.
    func shared<Storage: RandomAccessCollection<UInt8>>(
        from storage: Storage
    ) -> NDEFRecord where Storage.Index == Int, Storage.SubSequence == ArraySlice<UInt8> {
        let bytes: ArraySlice<UInt8>
        if let start {
            let first = storage.startIndex + start
            bytes = storage[first..<first + type.count + id.count + payload.count]
        } else {
            bytes = reassembled?[...] ?? []
        }
        return NDEFRecord(tnf: tnf, sharing: bytes, typeCount: type.count, idCount: id.count)
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
