/// The Type 5 TLV stream over a whole data area already in memory (a dump): the Type 2 TLVs without Lock and
/// Memory Control (Type 5 has none; `01` and `02` are skipped by their length).
public enum Type5TLV {
    /// Finds the NDEF message in a Type 5 data area, walking its TLVs the way a tag read does.
    /// - Parameters:
    ///   - dataArea: the data area as it starts after the capability container.
    ///   - ccSize: the capability container's size, 4 or 8: the tag byte address of the data area.
    /// - Returns: `.message`, `.empty` for an NDEF TLV of length 0, `.absent` when a terminator or the end
    ///   comes before any NDEF TLV.
    /// - Throws: `NFCTagError.malformedTLV` naming the tag byte address for a truncated TLV or a length past the
    ///   data area.
    public static func ndefMessage(inDataArea dataArea: [UInt8], ccSize: Int) throws -> TagReading.Content {
        let walker = Type2TLVWalker(
            dataAreaSize: dataArea.count, baseAddress: ccSize, label: "Type 5", hasControlTLVs: false)
        return try walker.content(ofWhole: dataArea)
    }
}
