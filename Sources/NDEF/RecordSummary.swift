/// One record in the JSON shape every `--json` output and the webhook event document use (docs/rules.md, "Records in JSON", the records
/// table under "webhook"). Optional fields are left out of the JSON when absent.
public struct RecordSummary: Sendable, Hashable, Encodable {
    /// `empty`, `well-known`, `media`, `absolute-uri`, `external` or `unknown`.
    public var tnf: String
    /// The type as text.
    public var type: String
    /// The record identifier as lowercase hex, if the record has one.
    public var id: String?
    /// The payload as lowercase hex.
    public var payload: String
    /// The expanded URI of `U`, `absolute-uri` and `Sp` records.
    public var uri: String?
    /// The text of a `T` record.
    public var text: String?
    /// The language code of a `T` record.
    public var lang: String?
    /// `utf-8` or `utf-16`, for a `T` record.
    public var encoding: String?
    /// The titles of an `Sp` record, by language.
    public var titles: [String: String]?
    /// The action of an `Sp` record: `open`, `save` or `edit`.
    public var action: String?
    /// The nested records of an `Sp` record.
    public var records: [RecordSummary]?
    /// The package name of an `android.com:pkg` record.
    public var package: String?

    /// Creates a summary with only the fields every record has.
    /// - Parameters:
    ///   - tnf: the TNF name.
    ///   - type: the type as text.
    ///   - id: the identifier as hex, if any.
    ///   - payload: the payload as hex.
    public init(tnf: String, type: String, id: String? = nil, payload: String) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }
}
