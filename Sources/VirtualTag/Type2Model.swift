/// The Type 2 tags the emulator knows: sizes from the NXP datasheets.
public enum Type2Model: String, Sendable, Hashable, CaseIterable {
    /// NTAG213: 144 bytes of user memory, 45 pages.
    case ntag213
    /// NTAG215: 504 bytes of user memory, 135 pages.
    case ntag215
    /// NTAG216: 888 bytes of user memory, 231 pages.
    case ntag216
    /// MIFARE Ultralight: 48 bytes of user memory, 16 pages.
    case ultralight

    /// User memory in bytes (the data area, from page 4).
    public var userBytes: Int {
        switch self {
        case .ntag213: 144
        case .ntag215: 504
        case .ntag216: 888
        case .ultralight: 48
        }
    }

    /// The capability container's size byte, as NXP programs it (data area = size × 8 bytes, which for NTAG215
    /// and NTAG216 is a little less than the user memory).
    public var ccSize: UInt8 {
        switch self {
        case .ntag213: 0x12
        case .ntag215: 0x3E
        case .ntag216: 0x6D
        case .ultralight: 0x06
        }
    }

    /// All pages, user memory plus the header, lock and configuration pages.
    public var totalPages: Int {
        self == .ultralight ? 16 : 4 + userBytes / 4 + 5
    }

    /// The Lock Control TLV value a factory-fresh tag carries (NTAG213: `A0 0C 34`), if any.
    public var factoryLockControl: [UInt8]? {
        self == .ntag213 ? [0xA0, 0x0C, 0x34] : nil
    }
}
