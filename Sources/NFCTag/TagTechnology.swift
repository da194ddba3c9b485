/// The technology of a tag, as named in rules and JSON output (docs/rules.md, "Conditions", `tech`).
public enum TagTechnology: String, Sendable, Hashable, CaseIterable {
    /// NFC Forum Type 2: MIFARE Ultralight, NTAG21x.
    case type2
    /// NFC Forum Type 4: ISO-DEP with the NDEF application (DESFire, NTAG 424, phones).
    case type4
    /// NFC Forum Type 5: ISO 15693.
    case type5
    /// MIFARE Classic 1K/4K/Mini.
    case mifareClassic = "mifare-classic"
    /// FeliCa (NFC Forum Type 3).
    case felica
    /// An ISO 14443-4 card without the NDEF application.
    case iso14443Part4 = "iso14443-4"
    /// NFC Forum Type 1: Topaz 512 (Innovision Jewel family).
    case type1
}
