/// What reading one presented card produced.
public struct TagReading: Sendable, Hashable {
    /// What the card holds, as far as NDEF goes.
    public enum Content: Sendable, Hashable {
        /// An NDEF message with at least one byte: the raw message bytes, to be decoded by `NDEF`.
        case message([UInt8])
        /// The card is NDEF formatted but its message is empty (NLEN 0, or an NDEF TLV of length 0).
        case empty
        /// The card holds no NDEF at all (blank, or not NDEF formatted, or no NDEF application).
        case absent
    }

    /// The UID read with `FF CA 00 00 00`, if the reader returned one.
    public var uid: [UInt8]?
    /// The tag technology.
    public var technology: TagTechnology
    /// The NDEF content.
    public var content: Content

    /// Creates a reading.
    /// - Parameters:
    ///   - uid: the UID bytes, if any.
    ///   - technology: the technology.
    ///   - content: the NDEF content.
    public init(uid: [UInt8]?, technology: TagTechnology, content: Content) {
        self.uid = uid
        self.technology = technology
        self.content = content
    }
}
