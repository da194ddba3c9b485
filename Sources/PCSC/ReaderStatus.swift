/// What a reader holds at one moment.
public struct ReaderStatus: Sendable, Hashable {
    /// The reader name.
    public var reader: String
    /// Whether a card is present and powered (present and not mute).
    public var isCardPresent: Bool
    /// The card's ATR; empty when no card is present.
    public var atr: [UInt8]
    /// The reader's event counter: it changes each time a card comes or goes.
    public var eventCount: UInt16

    /// Creates a status.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - isCardPresent: whether a usable card is present.
    ///   - atr: the ATR, empty for none.
    ///   - eventCount: the reader's event counter.
    public init(reader: String, isCardPresent: Bool, atr: [UInt8], eventCount: UInt16) {
        self.reader = reader
        self.isCardPresent = isCardPresent
        self.atr = atr
        self.eventCount = eventCount
    }

    init(state: ReaderState) {
        let present = ReaderStateFlags.isCardPresent(state.eventState)
        self.init(
            reader: state.name, isCardPresent: present, atr: present ? state.atr : [],
            eventCount: ReaderStateFlags.eventCount(state.eventState))
    }
}
