/// A Smart Poster (well-known type `Sp`): a nested NDEF message holding exactly one URI record and optional
/// titles (`T`, one per language), an action (`act`), a size (`s`), a type (`t`) and icons (image or video
/// media records).
///
/// A malformed Smart Poster payload makes the whole message fail to decode (it is not kept as opaque bytes):
/// the tag's URI would otherwise silently change with the decoder's leniency.
public struct SmartPoster: Sendable, Hashable {
    /// The recommended action on the URI.
    public enum Action: UInt8, Sendable, Hashable {
        /// Do the action: open the URI, call the number.
        case open = 0
        /// Save it for later.
        case save = 1
        /// Open it for editing.
        case edit = 2

        /// `open`, `save` or `edit`.
        public var name: String {
            switch self {
            case .open: "open"
            case .save: "save"
            case .edit: "edit"
            }
        }
    }

    /// The expanded URI of the poster's `U` record.
    public let uri: String
    /// The titles, in record order.
    public let titles: [TextRecord]
    /// The action of the first `act` record, if any.
    public let action: Action?
    /// The resource size in bytes from the first `s` record, if any.
    public let size: UInt32?
    /// The resource's media type from the first `t` record, if any.
    public let type: String?
    /// The icon records: media records whose type starts `image/` or `video/`.
    public let icons: [NDEFRecord]
    /// Every nested record, in order, including ones this type does not interpret.
    public let records: [NDEFRecord]

    /// Creates a Smart Poster; ``records`` holds the URI, titles, action, icons, size and type in that order.
    /// - Parameters:
    ///   - uri: the URI.
    ///   - titles: the titles, one per language.
    ///   - action: the recommended action.
    ///   - size: the resource size in bytes.
    ///   - type: the resource's media type.
    ///   - icons: icon records (media records of an image or video type).
    public init(
        uri: String, titles: [TextRecord] = [], action: Action? = nil, size: UInt32? = nil, type: String? = nil,
        icons: [NDEFRecord] = []
    ) {
        var records = [URIRecord(uri: uri).record] + titles.map(\.record)
        if let action {
            records.append(NDEFRecord(tnf: .wellKnown, type: RecordType.action, payload: [action.rawValue]))
        }
        records += icons
        if let size {
            let bytes = [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            records.append(NDEFRecord(tnf: .wellKnown, type: RecordType.size, payload: bytes))
        }
        if let type { records.append(NDEFRecord(tnf: .wellKnown, type: RecordType.type, payload: Array(type.utf8))) }
        self.init(uri: uri, titles: titles, action: action, size: size, type: type, icons: icons, records: records)
    }

    /// Reads a Smart Poster.
    /// - Parameter record: a well-known `Sp` record.
    /// - Throws: ``NDEFError`` with code `invalidSmartPoster` when the record is not `Sp`, or its payload is not
    ///   a valid NDEF message with exactly one URI record and well-formed action, size and type records; nested
    ///   errors keep their own code. Offsets are relative to the payload.
    public init(_ record: NDEFRecord) throws(NDEFError) {
        guard record.tnf == .wellKnown, record.type == RecordType.smartPoster else {
            throw RecordLocation.standalone.error(
                .invalidSmartPoster, at: 0, "the record is not a Smart Poster (type Sp)")
        }
        self = try Self.decode(record.payload, at: .standalone)
    }

    /// The `Sp` record holding ``records``.
    public var record: NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: RecordType.smartPoster, payload: NDEFMessage.encode(records))
    }

    /// A decoded poster: the fields and the nested records they came from.
    init(
        uri: String, titles: [TextRecord], action: Action?, size: UInt32?, type: String?, icons: [NDEFRecord],
        records: [NDEFRecord]
    ) {
        self.uri = uri
        self.titles = titles
        self.action = action
        self.size = size
        self.type = type
        self.icons = icons
        self.records = records
    }
}
