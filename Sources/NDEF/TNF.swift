/// The Type Name Format of an NDEF record: how to read the record's type field (NDEF 1.0, section 3.2.6).
public enum TNF: UInt8, Sendable, Hashable, CaseIterable {
    /// No type, no payload.
    case empty = 0
    /// An NFC Forum well-known type (RTD): `U`, `T`, `Sp`, …
    case wellKnown = 1
    /// A media type (RFC 2046), such as `application/json`.
    case media = 2
    /// An absolute URI; the type field holds the URI.
    case absoluteURI = 3
    /// An NFC Forum external type, `domain:type`.
    case external = 4
    /// Unknown type: the type field is empty.
    case unknown = 5
    /// The continuation of a chunked record; never seen after reassembly.
    case unchanged = 6
    /// Reserved by the NFC Forum; a record carrying it is invalid.
    case reserved = 7

    /// The name used in JSON output (docs/rules.md, "Records in JSON"): `empty`, `well-known`, `media`, `absolute-uri`, `external`,
    /// `unknown`, `unchanged` or `reserved`.
    public var name: String {
        switch self {
        case .empty: "empty"
        case .wellKnown: "well-known"
        case .media: "media"
        case .absoluteURI: "absolute-uri"
        case .external: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        case .reserved: "reserved"
        }
    }
}
