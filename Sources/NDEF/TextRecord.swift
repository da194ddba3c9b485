/// A Text record (well-known type `T`): a status byte, an IANA language code, then UTF-8 or UTF-16 text.
public struct TextRecord: Sendable, Hashable {
    /// How the text is encoded in the payload.
    public enum Encoding: String, Sendable, Hashable {
        /// UTF-8.
        case utf8 = "utf-8"
        /// UTF-16: big-endian unless a byte order mark says otherwise.
        case utf16 = "utf-16"
    }

    /// The text.
    public var text: String
    /// The IANA language code, such as `en` or `de-CH`.
    public var language: String
    /// The payload encoding.
    public var encoding: Encoding

    /// Creates a Text record.
    /// - Parameters:
    ///   - text: the text.
    ///   - language: an ASCII language code of 1 to 63 characters.
    ///   - encoding: the payload encoding; ``record`` writes UTF-16 big-endian with a byte order mark.
    /// - Throws: ``NDEFError`` with code `invalidText` when the language code is empty, longer than 63 bytes or
    ///   not ASCII.
    public init(text: String, language: String, encoding: Encoding = .utf8) throws(NDEFError) {
        let count = language.utf8.count
        guard (1...63).contains(count), language.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw RecordLocation.standalone.error(
                .invalidText, at: 0, "language code \"\(language)\" is not 1 to 63 printable ASCII characters")
        }
        self.text = text
        self.language = language
        self.encoding = encoding
    }

    /// Reads a Text record.
    /// - Parameter record: a well-known `T` record.
    /// - Throws: ``NDEFError`` with code `invalidText` for a record that is not `T`, an empty payload, an empty or
    ///   overlong language code, or text that is not valid in its encoding. Offsets are relative to the payload.
    public init(_ record: NDEFRecord) throws(NDEFError) {
        guard record.tnf == .wellKnown, record.type == RecordType.text else {
            throw RecordLocation.standalone.error(.invalidText, at: 0, "the record is not a Text record (type T)")
        }
        self = try record.payload.withUnsafeBufferPointer { payload throws(NDEFError) in
            try Self.decode(payload, at: .standalone)
        }
    }

    /// The record.
    public var record: NDEFRecord {
        let languageBytes = Array(language.utf8)
        var payload: [UInt8] = [UInt8(languageBytes.count) | (encoding == .utf16 ? 0x80 : 0)]
        payload.append(contentsOf: languageBytes)
        switch encoding {
        case .utf8:
            payload.append(contentsOf: text.utf8)
        case .utf16:
            payload.append(contentsOf: [0xFE, 0xFF])
            for unit in text.utf16 { payload.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)]) }
        }
        return NDEFRecord(tnf: .wellKnown, type: RecordType.text, payload: payload)
    }

    /// The layout of a checked payload: where the text starts and how it is encoded.
    struct Layout {
        var languageLength: Int
        var textStart: Int
        var encoding: Encoding
        var bigEndian: Bool
    }

    /// Checks a `T` payload without allocating.
    @discardableResult
    static func validate(_ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError) -> Layout
    {
        guard let status = payload.first else {
            throw location.error(.invalidText, at: 0, "Text record has an empty payload")
        }
        let languageLength = Int(status & 0x3F)
        guard languageLength > 0 else {
            throw location.error(.invalidText, at: 0, "Text record has an empty language code")
        }
        guard languageLength < payload.count else {
            throw location.error(
                .invalidText, at: 0,
                "Text record language code length \(languageLength) runs past the end of its payload "
                    + "(\(byteCount(payload.count)))")
        }
        if let bad = payload[1...languageLength].firstIndex(where: { $0 < 0x20 || $0 >= 0x7F }) {
            throw location.error(
                .invalidText, at: bad, "Text record language code holds the byte \(HexText.byte(payload[bad]))")
        }
        var layout = Layout(
            languageLength: languageLength, textStart: 1 + languageLength,
            encoding: status & 0x80 == 0 ? .utf8 : .utf16, bigEndian: true)
        if layout.encoding == .utf8 {
            if let bad = UnicodeValidation.firstInvalidUTF8(payload, from: layout.textStart) {
                throw location.error(.invalidText, at: bad, "Text record text is not valid UTF-8")
            }
            return layout
        }
        let textLength = payload.count - layout.textStart
        guard textLength % 2 == 0 else {
            throw location.error(
                .invalidText, at: layout.textStart,
                "Text record UTF-16 text has an odd length (\(byteCount(textLength)))")
        }
        if textLength >= 2 {
            let mark = (payload[layout.textStart], payload[layout.textStart + 1])
            if mark == (0xFE, 0xFF) || mark == (0xFF, 0xFE) {
                layout.bigEndian = mark.0 == 0xFE
                layout.textStart += 2
            }
        }
        if let bad = UnicodeValidation.firstInvalidUTF16(
            payload, from: layout.textStart, bigEndian: layout.bigEndian)
        {
            throw location.error(.invalidText, at: bad, "Text record text is not valid UTF-16")
        }
        return layout
    }

    /// Checks and decodes a `T` payload.
    static func decode(_ payload: UnsafeBufferPointer<UInt8>, at location: RecordLocation) throws(NDEFError)
        -> TextRecord
    {
        let layout = try validate(payload, at: location)
        let language = String(
            decoding: UnsafeBufferPointer(rebasing: payload[1...layout.languageLength]), as: UTF8.self)
        let text =
            layout.encoding == .utf8
            ? String(decoding: UnsafeBufferPointer(rebasing: payload[layout.textStart...]), as: UTF8.self)
            : UnicodeValidation.decodeUTF16(payload, from: layout.textStart, bigEndian: layout.bigEndian)
        return TextRecord(checkedText: text, language: language, encoding: layout.encoding)
    }

    private init(checkedText text: String, language: String, encoding: Encoding) {
        self.text = text
        self.language = language
        self.encoding = encoding
    }
}
