/// The bits of a reader's `dwEventState` (pcsc-lite `SCARD_STATE_*`).
enum ReaderStateFlags {
    static let changed: UInt32 = 0x0002
    static let unknown: UInt32 = 0x0004
    static let unavailable: UInt32 = 0x0008
    static let empty: UInt32 = 0x0010
    static let present: UInt32 = 0x0020
    static let mute: UInt32 = 0x0200

    /// Whether a card is present and answering.
    static func isCardPresent(_ state: UInt32) -> Bool {
        state & present != 0 && state & mute == 0 && state & (unknown | unavailable) == 0
    }

    /// The upper 16 bits: the count of card insertions and removals in that reader.
    static func eventCount(_ state: UInt32) -> UInt16 {
        UInt16(truncatingIfNeeded: state >> 16)
    }
}
