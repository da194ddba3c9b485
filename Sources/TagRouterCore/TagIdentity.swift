/// What makes two presentations "the same tag" for cooldown (docs/rules.md, "Presentations and cooldown").
///
/// A tag is known by its UID, unless the UID is random (ISO 14443-3 single-size random UIDs start with `08`,
/// as phones emulating a card present a new one on every tap) or absent: then it is known by its NDEF bytes.
public enum TagIdentity: Sendable, Hashable {
    /// A stable UID.
    case uid([UInt8])
    /// The NDEF message bytes of a tag whose UID says nothing (random or absent).
    case content([UInt8])

    /// Chooses the identity of a tag.
    /// - Parameters:
    ///   - uid: the UID the reader returned, if any.
    ///   - ndef: the raw NDEF message bytes, empty when the tag holds none.
    /// - Returns: `.uid` for a stable UID, `.content` otherwise.
    public init(uid: [UInt8]?, ndef: [UInt8]) {
        if let uid, !uid.isEmpty, !TagIdentity.isRandom(uid: uid) {
            self = .uid(uid)
        } else {
            self = .content(ndef)
        }
    }

    /// Whether a UID is a random one (4 bytes, first byte `08`, ISO/IEC 14443-3 section 6.4.4).
    /// - Parameter uid: the UID bytes.
    /// - Returns: `true` for a random UID.
    public static func isRandom(uid: [UInt8]) -> Bool {
        uid.count == 4 && uid[0] == 0x08
    }
}
