public import NDEF
public import NFCTag
public import TagRules

extension TagEvent {
    /// The event rules see for a tag that was read (docs/rules.md, "The tag as rules see it").
    /// - Parameters:
    ///   - reading: what the tag reader returned.
    ///   - message: the decoded NDEF message (empty for a blank or non-NDEF tag).
    ///   - reader: the reader name.
    public init(reading: TagReading, message: NDEFMessage, reader: String) {
        self.init(
            uid: reading.uid.map(UID.hex), reader: reader, tech: reading.technology.rawValue, message: message)
    }
}

/// The canonical printed form of a UID: uppercase hex, no separators (`04A1B2C3D4E580`).
public enum UID {
    /// Formats UID bytes.
    /// - Parameter bytes: the UID.
    /// - Returns: uppercase hex without separators.
    public static func hex(_ bytes: [UInt8]) -> String {
        HexText.string(bytes, uppercase: true)
    }
}
