/// The Type 1 TLV stream over a whole data area already in memory (a dump): the Type 2 TLVs from tag byte 12,
/// Lock and Memory Control TLVs reserving bytes at tag addresses counted from byte 0 (docs/tags.md, "Type 1 tags").
public enum Type1TLV {
    /// Finds the NDEF message in a Type 1 data area, walking its TLVs the way ``Type1Reader`` does.
    /// - Parameter dataArea: the data area as it starts at tag byte 12; its size is the data area's.
    /// - Returns: `.message`, `.empty` for an NDEF TLV of length 0, `.absent` when a terminator or the end
    ///   comes before any NDEF TLV.
    /// - Throws: `NFCTagError.malformedTLV` naming the tag byte address (12 + index) for a truncated TLV or a
    ///   length past the data area.
    public static func ndefMessage(inDataArea dataArea: [UInt8]) throws -> TagReading.Content {
        let walker = Type2TLVWalker(dataAreaSize: dataArea.count, baseAddress: 12, label: "Type 1")
        return try walker.content(ofWhole: dataArea)
    }
}
