public import NDEF

/// One presentation of a tag, as rules see it (RULES.md, "The tag, as rules see it").
public struct TagEvent: Sendable, Hashable {
    /// The UID as uppercase hex without separators, if the tag has one.
    public var uid: String?
    /// The PC/SC reader name.
    public var reader: String
    /// The tag technology: `type2`, `type4`, `type5`, `mifare-classic`, `felica` or `iso14443-4`.
    public var tech: String
    /// The decoded NDEF records in message order.
    public var records: [NDEFRecord]

    /// Creates an event.
    /// - Parameters:
    ///   - uid: the UID as hex, if any.
    ///   - reader: the reader name.
    ///   - tech: the tag technology.
    ///   - records: the decoded records.
    public init(uid: String?, reader: String, tech: String, records: [NDEFRecord]) {
        self.uid = uid
        self.reader = reader
        self.tech = tech
        self.records = records
    }
}
