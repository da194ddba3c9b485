public import Foundation

/// One JSON style for everything TagRouter writes as JSON: the log's JSON lines, `check --json`, `match --json`,
/// `readers --json`, `history --json` and Home Assistant's discovery documents. Keys are sorted (the same input
/// gives the same bytes), slashes are not escaped (a URL reads as written), and a document is one line.
public enum JSONOutput {
    /// The encoder, configured once; encoding with it is thread-safe.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A value as JSON bytes.
    /// - Parameter value: what to encode.
    /// - Returns: the document's bytes.
    /// - Throws: `EncodingError` when the value cannot be encoded (a non-finite number).
    public static func data(_ value: some Encodable) throws -> Data {
        try encoder.encode(value)
    }

    /// A value as a JSON text.
    /// - Parameter value: what to encode.
    /// - Returns: the document.
    /// - Throws: `EncodingError` when the value cannot be encoded (a non-finite number).
    public static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A value that cannot fail to encode (strings, numbers, optionals, arrays of them) as a JSON text.
    /// - Parameter value: what to encode.
    public static func line(_ value: some Encodable) -> String {
        (try? string(value)) ?? "null"
    }
}
