public import NDEF

extension TagEvent {
    /// Creates the event for a tag from its decoded NDEF message: the tag's URI (docs/rules.md, "The tag's URI"),
    /// the texts, media types and external types are taken from the message.
    /// - Parameters:
    ///   - uid: the UID as hex, if the tag has one (normalized to upper case).
    ///   - reader: the PC/SC reader name.
    ///   - tech: the tag technology.
    ///   - message: the decoded NDEF message (empty for blank tags and cards without NDEF).
    public init(uid: String?, reader: String, tech: String, message: NDEFMessage) {
        self.init(
            uid: uid?.uppercased(), reader: reader, tech: tech, records: message.records, uri: message.tagURI,
            texts: message.texts, mediaTypes: message.mediaTypes, externalTypes: message.externalTypes)
        uriPrefixLength = message.tagURIPrefixLength
    }
}
