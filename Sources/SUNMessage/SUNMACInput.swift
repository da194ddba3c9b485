/// What an NTAG 424 DNA's SDMMAC covers besides the UID and the counter: the bytes of the NDEF file from
/// SDMMACInputOffset up to the MAC (the data sheet, "Secure Dynamic Messaging"; docs/doors.md, "What a SUN
/// message proves").
public enum SUNMACInput: String, Sendable, Hashable, CaseIterable {
    /// The URL as the tag stores it, from its first character (the byte after the URI record's identifier code)
    /// up to the MAC's first hex digit: host, path, every query item and the other SUN items are proved.
    /// `tagrouter write --sun` provisions this layout.
    case url
    /// From the encrypted file data up to the MAC (NXP AN12196's layout with file data): the file data and what
    /// follows it are proved, the host, path and query items before it are not.
    case fileData
    /// Nothing: the MAC input is empty (AN12196's example without file data, boltcards). The UID and the counter
    /// are proved, nothing of the URL around them.
    case none

    /// Whether the MAC proves the whole URL, so that a tag whose message verifies chose none of it.
    public var coversURL: Bool { self == .url }
}
