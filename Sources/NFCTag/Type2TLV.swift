/// The Type 2 TLV stream over a whole data area already in memory (a dump, `tagrouter decode --tlv`).
public enum Type2TLV {
    /// Finds the NDEF message in a Type 2 data area, walking its TLVs the way a tag read does: NULL TLVs,
    /// Lock and Memory Control TLVs (whose reserved bytes are then skipped), proprietary TLVs, the
    /// terminator, one- and three-byte lengths.
    /// - Parameter dataArea: the data area as it starts at tag byte 16 (page 4); its size is the data area's.
    /// - Returns: `.message` with the NDEF bytes, `.empty` for an NDEF TLV of length 0, `.absent` when a
    ///   terminator or the end comes before any NDEF TLV.
    /// - Throws: `NFCTagError.malformedTLV`, naming the tag byte address (16 + index), for a truncated TLV or a
    ///   length that runs past the data area.
    public static func ndefMessage(inDataArea dataArea: [UInt8]) throws -> TagReading.Content {
        let walker = Type2TLVWalker(dataAreaSize: dataArea.count)
        return try walker.content(ofWhole: dataArea)
    }
}
