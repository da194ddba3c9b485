/// Why NDEF bytes or a record could not be decoded or encoded, and where.
///
/// Its ``description`` is one sentence naming the record, the byte offset and the problem:
/// `record 2 at byte 17: payload length 300 runs past the end of the message (41 bytes)`.
public struct NDEFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: Sendable, Hashable {
        /// A record header is cut off by the end of the data.
        case truncatedHeader
        /// A type, ID or payload length runs past the end of the data.
        case lengthPastEnd
        /// The first record lacks the MB (message begin) flag.
        case missingMessageBegin
        /// A record other than the first carries the MB flag.
        case unexpectedMessageBegin
        /// No record carries the ME (message end) flag.
        case missingMessageEnd
        /// Bytes follow the record carrying the ME flag.
        case dataAfterMessageEnd
        /// A record uses TNF 7, which is reserved.
        case reservedTNF
        /// A type length is not allowed for the record's TNF (an empty record with lengths, a missing type).
        case invalidRecordShape
        /// Chunk flags or a chunk continuation are misused.
        case chunkMisuse
        /// A URI record (`U`) or absolute-URI type is invalid.
        case invalidURI
        /// A Text record (`T`) is invalid.
        case invalidText
        /// A Smart Poster (`Sp`) is invalid, including a malformed nested message.
        case invalidSmartPoster
        /// An Android Application Record (`android.com:pkg`) is invalid.
        case invalidAndroidApplication
        /// A record cannot be encoded (a type or ID longer than 255 bytes, TNF 6 or 7).
        case unencodable
    }

    /// The kind of problem.
    public var code: Code
    /// The index (from 0) of the record header where the problem is, counting every header in the byte stream,
    /// chunks included; for a problem inside a Smart Poster, the index of the Smart Poster record.
    public var record: Int
    /// The byte offset, from the start of the outermost message, where the problem is.
    public var offset: Int
    /// What is wrong, without the location prefix.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of problem.
    ///   - record: the record index.
    ///   - offset: the byte offset in the outermost message.
    ///   - message: what is wrong.
    public init(code: Code, record: Int, offset: Int, message: String) {
        self.code = code
        self.record = record
        self.offset = offset
        self.message = message
    }

    /// The sentence: `record <index> at byte <offset>: <message>`.
    public var description: String {
        "record \(record) at byte \(offset): \(message)"
    }
}
