public import NDEF

/// What `tagrouter write` tells about the tag it wrote: the JSON document and the human lines.
public struct WriteReport: Encodable, Sendable {
    /// The reader the tag is on.
    public var reader: String
    /// The UID as uppercase hex, `nil` when the reader gave none.
    public var uid: String?
    /// The technology as named in rules.
    public var tech: String
    /// The ATR as uppercase hex.
    public var atr: String
    /// The records written, in the shape of `tagrouter read --json`.
    public var records: [RecordSummary]
    /// The message size in bytes.
    public var bytes: Int
    /// The most bytes a message may have on the tag, when known.
    public var capacity: Int?
    /// The commands sent, read-back included.
    public var commands: Int
    /// Whether the tag was made read-only.
    public var locked: Bool

    /// The human form: the facts of `read`, then what was written.
    public var lines: [String] {
        var lines = [
            "reader   \(reader)", "uid      \(uid ?? "(none)")", "tech     \(tech)", "atr      \(atr)",
        ]
        let of = capacity.map { " of \($0)" } ?? ""
        lines.append("written  \(bytes)\(of) bytes, read back and verified (\(commands) commands)")
        if locked { lines.append("locked   permanently read-only") }
        if records.isEmpty { lines.append("empty NDEF message") }
        for (index, record) in records.enumerated() {
            let detail = DecodeOutput.printable(
                record.uri ?? record.text ?? record.package ?? "payload \(record.payload)")
            lines.append("record \(index + 1)  \(record.tnf) \(DecodeOutput.printable(record.type))  \(detail)")
        }
        return lines
    }
}
