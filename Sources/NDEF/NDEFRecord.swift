/// One NDEF record as it stands after decoding: chunks reassembled, header flags consumed.
public struct NDEFRecord: Sendable, Hashable {
    /// How to read ``type``.
    public var tnf: TNF
    /// The record type bytes (for well-known types, `U`, `T`, `Sp` in ASCII).
    public var type: [UInt8]
    /// The record identifier, empty when the record has none.
    public var id: [UInt8]
    /// The (reassembled) payload.
    public var payload: [UInt8]

    /// Creates a record from its parts.
    /// - Parameters:
    ///   - tnf: the type name format.
    ///   - type: the type bytes.
    ///   - id: the identifier bytes, empty for none.
    ///   - payload: the payload bytes.
    public init(tnf: TNF, type: [UInt8], id: [UInt8] = [], payload: [UInt8]) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }
}
