/// The MIFARE Classic keys the NFC Forum and formatters use (docs/tags.md, "MIFARE Classic").
public enum ClassicKey {
    /// Key A of the MAD sectors (0 and 16), public: `A0 A1 A2 A3 A4 A5`.
    public static let mad: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    /// Key A of the NDEF sectors, public: `D3 F7 D3 F7 D3 F7`.
    public static let ndef: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
    /// The factory key (A and B), also the key B formatters write: `FF FF FF FF FF FF`.
    public static let factory: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
}
