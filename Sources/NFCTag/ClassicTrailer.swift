/// The sector trailers NFC Forum formatters write (AOSP `rw_mfc.cc`, NXP's formatter; docs/tags.md, "MIFARE
/// Classic"): key A, access bits, GPB, key B.
public enum ClassicTrailer {
    /// An NDEF sector: key A `D3F7D3F7D3F7`, `7F 07 88` (data read/write with key A, trailer written with key B),
    /// GPB `40` (version 1.0, read/write), key B `FFFFFFFFFFFF`; read-only: `07 8F 0F`, GPB `43`.
    /// - Parameter isReadOnly: the read-only form.
    /// - Returns: the 16 bytes.
    public static func ndef(isReadOnly: Bool = false) -> [UInt8] {
        isReadOnly
            ? ClassicKey.ndef + ClassicAccessBits.readOnly.encoded + [0x43] + ClassicKey.factory
            : ClassicKey.ndef + ClassicAccessBits.ndef.encoded + [0x40] + ClassicKey.factory
    }

    /// A MAD sector (0, and 16 on a 4K): key A `A0A1A2A3A4A5`, `78 77 88` (read with A, written with B) or,
    /// read-only, `07 8F 0F`, the GPB, key B `FFFFFFFFFFFF`.
    /// - Parameters:
    ///   - gpb: `C1` (MAD1: DA, MA, version 1) or `C2` (MAD2).
    ///   - isReadOnly: the read-only form.
    /// - Returns: the 16 bytes.
    public static func mad(gpb: UInt8, isReadOnly: Bool = false) -> [UInt8] {
        ClassicKey.mad + (isReadOnly ? ClassicAccessBits.readOnly : ClassicAccessBits.mad).encoded + [gpb]
            + ClassicKey.factory
    }

    /// The factory trailer: key A and key B `FFFFFFFFFFFF`, `FF 07 80`, GPB `69`.
    public static let factory: [UInt8] =
        ClassicKey.factory + ClassicAccessBits.factory.encoded + [0x69] + ClassicKey.factory

    /// The MAD1 a formatter writes for a model: every sector NDEF, Mini sectors 5-15 not applicable.
    /// - Parameter model: the card model.
    /// - Returns: the directory.
    public static func mad1(for model: MifareClassicModel) -> MAD {
        MAD(version: .mad1, aids: (1...15).map { $0 < model.sectorCount ? MAD.ndefAID : MAD.notApplicableAID })
    }

    /// The MAD2 a formatter writes on a 4K: sectors 17-39 NDEF.
    public static let mad2 = MAD(version: .mad2, aids: Array(repeating: MAD.ndefAID, count: 23))
}
