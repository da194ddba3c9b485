public import NDEF

/// One presentation of a tag, as rules see it (docs/rules.md, "The tag as rules see it").
public struct TagEvent: Sendable, Hashable {
    /// The UID as uppercase hex without separators, if the tag has one.
    public var uid: String?
    /// The PC/SC reader name.
    public var reader: String
    /// The tag technology: `type2`, `type4`, `type5`, `mifare-classic`, `felica`, `iso14443-4` or `type1`.
    public var tech: String
    /// The decoded NDEF records in message order.
    public var records: [NDEFRecord]
    /// The tag's URI (docs/rules.md, "The tag's URI"), expanded, if there is one.
    public var uri: String?
    /// How many UTF-8 bytes at the start of ``uri`` the tag abbreviated with its URI record's identifier code
    /// (8 for `https://` stored as code 0x04), 0 when the tag stores the whole URI; nil when unknown (a URI typed
    /// to `tagrouter match`: both the usual abbreviation and none are tried). A SUN MAC that covers the URL
    /// covers the text after them (docs/doors.md, "What a SUN message proves").
    public var uriPrefixLength: Int?
    /// The texts of the Text records, in message order (Smart Poster titles excluded).
    public var texts: [String]
    /// The media types of TNF 2 records, lower-cased, without parameters.
    public var mediaTypes: [String]
    /// The `domain:type` of TNF 4 records, lower-cased.
    public var externalTypes: [String]
    /// The tag's entry in the tags file, if it is enrolled (``RuleSet/decide(_:at:)`` looks it up by UID).
    public var known: KnownTag?
    /// The SUN message the first matched rule with `sun` verified (``RuleSet/decide(_:at:)``).
    public var sun: VerifiedSUN?

    /// Creates an event.
    /// - Parameters:
    ///   - uid: the UID as hex, if any.
    ///   - reader: the reader name.
    ///   - tech: the tag technology.
    ///   - records: the decoded records.
    ///   - uri: the tag's URI, if any.
    ///   - texts: the Text records' texts.
    ///   - mediaTypes: the media types of TNF 2 records.
    ///   - externalTypes: the external types of TNF 4 records.
    public init(
        uid: String?,
        reader: String,
        tech: String,
        records: [NDEFRecord] = [],
        uri: String? = nil,
        texts: [String] = [],
        mediaTypes: [String] = [],
        externalTypes: [String] = []
    ) {
        self.uid = uid
        self.reader = reader
        self.tech = tech
        self.records = records
        self.uri = uri
        self.texts = texts
        self.mediaTypes = mediaTypes
        self.externalTypes = externalTypes
    }
}
