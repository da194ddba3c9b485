/// Where a record sits in the outermost message, so that content errors can name a byte offset.
struct RecordLocation: Sendable {
    /// The record's header index (its first chunk's, for a chunked record).
    var record: Int
    /// The byte offset of the record's (first) header in the outermost message.
    var header: Int
    /// The byte offset of the payload's first byte, or `nil` when the payload was reassembled from chunks and
    /// positions inside it do not map to the message.
    var payload: Int?
    /// How many Smart Posters enclose this record.
    var depth: Int

    /// A record that was not decoded from bytes: offsets are relative to its payload.
    static let standalone = RecordLocation(record: 0, header: 0, payload: 0, depth: 0)

    /// An error about the byte at `index` in the payload.
    func error(_ code: NDEFError.Code, at index: Int, _ message: String) -> NDEFError {
        NDEFError(code: code, record: record, offset: payload.map { $0 + index } ?? header, message: message)
    }
}
