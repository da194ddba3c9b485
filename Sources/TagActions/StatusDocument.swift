import Foundation
import JSONOutput

/// A host's status document (docs/fleet.md, "The status document"): retained on `<topicPrefix>/status`, the topic
/// Home Assistant's availability and `tagrouter fleet status` read. The last will is `{"state":"offline"}` alone;
/// every other document has every field, `null` where there is nothing to say.
public struct StatusDocument: Codable, Sendable, Equatable {
    /// The bundle in force.
    public struct Bundle: Codable, Sendable, Equatable {
        /// Its version.
        public var version: Int
        /// The SHA-256 of its file, in hex.
        public var sha256: String
        /// Where it was taken from (a URL), or `STATE/bundle/current.trb` when it was restored at start-up.
        public var source: String

        /// Creates the field.
        /// - Parameters:
        ///   - version: the version.
        ///   - sha256: the file's digest.
        ///   - source: where it came from.
        public init(version: Int, sha256: String, source: String) {
            self.version = version
            self.sha256 = sha256
            self.source = source
        }
    }

    /// The last bundle refused.
    public struct RefusedBundle: Codable, Sendable, Equatable {
        /// Its version, when it was read that far.
        public var version: Int?
        /// The reason as a word (`untrusted-key`, `signature`, `digest`, `older`, `check`, …).
        public var reason: String
        /// The sentence saying what is wrong and where.
        public var error: String
        /// Where it came from.
        public var source: String
        /// When it was refused (RFC 3339).
        public var at: String

        /// Creates the field.
        /// - Parameters:
        ///   - version: the version, if read.
        ///   - reason: the reason word.
        ///   - error: the sentence.
        ///   - source: where it came from.
        ///   - at: when (RFC 3339).
        public init(version: Int?, reason: String, error: String, source: String, at: String) {
            self.version = version
            self.reason = reason
            self.error = error
            self.source = source
            self.at = at
        }

        enum CodingKeys: String, CodingKey { case version, reason, error, source, at }

        /// Writes every field, `version` as `null` when unknown.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(reason, forKey: .reason)
            try container.encode(error, forKey: .error)
            try container.encode(source, forKey: .source)
            try container.encode(at, forKey: .at)
        }
    }

    /// A reader and its state: `ready` (no tag on it) or `tag-present`.
    public struct Reader: Codable, Sendable, Equatable {
        /// The PC/SC reader name.
        public var name: String
        /// `ready` or `tag-present`.
        public var state: String

        /// Creates the field.
        /// - Parameters:
        ///   - name: the reader name.
        ///   - state: its state.
        public init(name: String, state: String) {
            self.name = name
            self.state = state
        }
    }

    /// The host clock's synchronisation, as the kernel reports it.
    public struct Clock: Codable, Sendable, Equatable {
        /// Whether the kernel considers the clock synchronised (NTP or PTP disciplining it).
        public var synchronized: Bool
        /// Where that was read: `adjtimex`.
        public var source: String

        /// Creates the field.
        /// - Parameters:
        ///   - synchronized: whether the clock is synchronised.
        ///   - source: where that was read.
        public init(synchronized: Bool, source: String) {
            self.synchronized = synchronized
            self.source = source
        }
    }

    /// A reader locked out by a rule's `lockout:` (docs/doors.md, "Lockout").
    public struct Lockout: Codable, Sendable, Equatable {
        /// The reader name.
        public var reader: String
        /// The rule whose refusals locked it.
        public var rule: String
        /// When the lockout ends (RFC 3339).
        public var until: String

        /// Creates the field.
        /// - Parameters:
        ///   - reader: the reader.
        ///   - rule: the rule.
        ///   - until: when it ends.
        public init(reader: String, rule: String, until: String) {
            self.reader = reader
            self.rule = rule
            self.until = until
        }
    }

    /// `online`, or `offline` (the last will, and a clean stop).
    public var state: String
    /// The TagRouter version.
    public var version: String?
    /// The bundle in force; nil without one.
    public var bundle: Bundle?
    /// The last bundle refused since the start; nil when none was.
    public var refusedBundle: RefusedBundle?
    /// The readers present.
    public var readers: [Reader]?
    /// Deliveries waiting in the outbox (webhooks and MQTT publications).
    public var outbox: Int?
    /// The clock's synchronisation.
    public var clock: Clock?
    /// Seconds since the router started.
    public var uptime: Int?
    /// The readers locked out now.
    public var lockouts: [Lockout]?
    /// When the document was made (RFC 3339).
    public var updated: String?

    /// The last will's document: `{"state":"offline"}`.
    public static let will = StatusDocument(state: "offline")

    /// Creates a document with only a state (the last will).
    /// - Parameter state: `online` or `offline`.
    public init(state: String) {
        self.state = state
    }

    /// Creates a full document.
    /// - Parameters:
    ///   - state: `online` or `offline`.
    ///   - version: the TagRouter version.
    ///   - bundle: the bundle in force.
    ///   - refusedBundle: the last bundle refused.
    ///   - readers: the readers present.
    ///   - outbox: deliveries waiting.
    ///   - clock: the clock's synchronisation.
    ///   - uptime: seconds since the start.
    ///   - lockouts: the readers locked out.
    ///   - updated: when it was made.
    public init(
        state: String, version: String, bundle: Bundle?, refusedBundle: RefusedBundle?, readers: [Reader],
        outbox: Int, clock: Clock, uptime: Int, lockouts: [Lockout], updated: String
    ) {
        self.state = state
        self.version = version
        self.bundle = bundle
        self.refusedBundle = refusedBundle
        self.readers = readers
        self.outbox = outbox
        self.clock = clock
        self.uptime = uptime
        self.lockouts = lockouts
        self.updated = updated
    }

    enum CodingKeys: String, CodingKey {
        case state, version, bundle, refusedBundle, readers, outbox, clock, uptime, lockouts, updated
    }

    /// Writes `state` alone for the last will; else every field, `bundle` and `refusedBundle` as `null` when there
    /// is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        guard let version else { return }
        try container.encode(version, forKey: .version)
        try container.encode(bundle, forKey: .bundle)
        try container.encode(refusedBundle, forKey: .refusedBundle)
        try container.encodeIfPresent(readers, forKey: .readers)
        try container.encodeIfPresent(outbox, forKey: .outbox)
        try container.encodeIfPresent(clock, forKey: .clock)
        try container.encodeIfPresent(uptime, forKey: .uptime)
        try container.encodeIfPresent(lockouts, forKey: .lockouts)
        try container.encodeIfPresent(updated, forKey: .updated)
    }

    /// The document as one line of JSON (JSONOutput's style).
    /// - Returns: the bytes.
    public func payload() -> [UInt8] {
        // Strings, whole numbers and booleans only: encoding cannot fail.
        Array(try! JSONOutput.data(self))
    }

    /// The same document marked `offline` (published on a clean stop, before disconnecting).
    public var offline: StatusDocument {
        var copy = self
        copy.state = "offline"
        return copy
    }
}
