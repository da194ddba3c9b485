import Foundation
import JSONOutput
public import NDEF
public import TagRules

/// The event document (docs/rules.md, "The event document"): the default webhook body and `TAG_EVENT_JSON`.
///
/// Encoded with sorted keys and unescaped slashes, so the same event always gives the same bytes.
public struct EventDocument: Sendable, Hashable, Encodable {
    /// The tag part of the document.
    public struct Tag: Sendable, Hashable, Encodable {
        /// The UID as uppercase hex, if the tag has one.
        public var uid: String?
        /// The tag technology (`type2`, `type4`, …).
        public var tech: String
        /// The enrolled name, when the tag is enrolled (docs/doors.md, "The tags file").
        public var name: String?
        /// The enrolled tag's groups, when it is enrolled.
        public var groups: [String]?

        /// Creates the tag part.
        /// - Parameters:
        ///   - uid: the UID as uppercase hex, if any.
        ///   - tech: the tag technology.
        ///   - known: the tag's entry in the tags file, if it is enrolled.
        public init(uid: String?, tech: String, known: KnownTag? = nil) {
            self.uid = uid
            self.tech = tech
            self.name = known?.name
            self.groups = known?.groups
        }
    }

    /// A verified SUN message (docs/doors.md, "SUN: tags that prove themselves").
    public struct Sun: Sendable, Hashable, Encodable {
        /// The UID the message names, as `{sun.uid}`.
        public var uid: String
        /// Its read counter, as `{sun.counter}`.
        public var counter: Int64
        /// Its file data, as `{sun.file}`; left out when it has none.
        public var file: String?

        /// The part for a verified message.
        /// - Parameter sun: the message.
        public init(_ sun: VerifiedSUN) {
            uid = sun.uid
            counter = Int64(sun.counter)
            file = sun.fileData == nil ? nil : sun.fileText
        }
    }

    /// A refusal's part of the document (docs/doors.md, "Refusals").
    public struct Denied: Sendable, Hashable, Encodable {
        /// Why the rule refused the tag.
        public var reason: DenialReason

        /// Creates the part.
        /// - Parameter reason: why the rule refused the tag.
        public init(reason: DenialReason) {
            self.reason = reason
        }
    }

    /// The event id, a time-ordered UUID (see ``EventID``).
    public var id: String
    /// The time of the tap, RFC 3339 UTC with milliseconds.
    public var time: String
    /// The name of the matched rule.
    public var rule: String
    /// The PC/SC reader name.
    public var reader: String
    /// The tag.
    public var tag: Tag
    /// The tag's URI, if it has one.
    public var uri: String?
    /// The records, in the shape of docs/rules.md, "Records in JSON".
    public var records: [RecordSummary]
    /// Home Assistant's tag id, the value of `{ha_tag_id}` (docs/rules.md, "Placeholders"); empty when the tag
    /// has neither a Home Assistant tag URI nor a UID.
    public var haTagID: String
    /// Which event of its presentation this is: `tap`, `removed`, `held` or `returned` (docs/rules.md, "Tags that
    /// stay on the reader").
    public var event: PresentationEventKind = .tap
    /// The id every event of one presentation shares: the event id of its tap.
    public var presentationID: String
    /// How long the tag had been on the reader at the event, in milliseconds.
    public var presentedForMilliseconds: Int64 = 0
    /// For a door rule's refusal: why; nil (left out) otherwise.
    public var denied: Denied?
    /// The SUN message a rule verified; nil (left out) otherwise.
    public var sun: Sun?

    enum CodingKeys: String, CodingKey {
        case id, time, rule, reader, tag, uri, records, event, denied, sun
        case haTagID = "ha_tag_id"
        case presentationID = "presentation_id"
        case presentedForMilliseconds = "presented_for_ms"
    }

    /// Creates a document.
    /// - Parameters:
    ///   - id: the event id.
    ///   - time: the tap time, RFC 3339 (see ``Timestamp/rfc3339(_:)``).
    ///   - rule: the matched rule's name.
    ///   - reader: the reader name.
    ///   - tag: the tag's UID and technology.
    ///   - uri: the tag's URI, if any.
    ///   - records: the record summaries.
    ///   - haTagID: the Home Assistant tag id (`{ha_tag_id}`).
    public init(
        id: String,
        time: String,
        rule: String,
        reader: String,
        tag: Tag,
        uri: String? = nil,
        records: [RecordSummary] = [],
        haTagID: String = ""
    ) {
        self.id = id
        self.time = time
        self.rule = rule
        self.reader = reader
        self.tag = tag
        self.uri = uri
        self.records = records
        self.haTagID = haTagID
        self.presentationID = id
    }

    /// The text of the first top-level Text record, as `{text}` and `TAG_TEXT` use it.
    public var firstText: String? {
        records.first { $0.tnf == "well-known" && $0.type == "T" && $0.text != nil }?.text
    }

    /// The document as JSON bytes, in the one JSON style (`JSONOutput`: sorted keys, slashes unescaped).
    public func jsonBytes() -> [UInt8] {
        // Strings, integers, optionals and arrays of them always encode.
        Array(try! JSONOutput.data(self))
    }

    /// The document as a JSON string.
    public func jsonString() -> String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }
}
