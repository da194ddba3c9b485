/// What the watcher knows about the readers, and the events each new observation implies.
///
/// A value-type state machine: feed it reader lists and `SCardGetStatusChange` results, it returns events.
struct WatchState: Sendable, Hashable {
    /// What is known about one reader.
    struct Reader: Sendable, Hashable {
        var name: String
        /// The last `dwEventState`, passed back as the next `dwCurrentState`.
        var lastState: UInt32 = 0
        var isCardPresent = false
        var eventCount: UInt16 = 0
    }

    /// Known readers, in pcscd's order.
    private(set) var readers: [Reader] = []
    /// The last state of the `\\?PnP?\Notification` entry.
    private(set) var plugAndPlayState: UInt32 = 0

    /// A new reader list: the readers that appeared and went away.
    mutating func readersListed(_ names: [String]) -> [ReaderEvent] {
        var events: [ReaderEvent] = []
        let listed = Set(names)
        for reader in readers where !listed.contains(reader.name) {
            if reader.isCardPresent {
                events.append(.cardRemoved(reader: reader.name))
            }
            events.append(.readerRemoved(reader.name))
        }
        let known = Set(readers.map(\.name))
        readers.removeAll { !listed.contains($0.name) }
        for name in names where !known.contains(name) {
            readers.append(Reader(name: name))
            events.append(.readerAdded(name))
        }
        return events
    }

    /// The entries to wait on: the plug-and-play notification, then every known reader.
    func statesToWatch() -> [ReaderState] {
        [ReaderState(name: ReaderState.plugAndPlayName, currentState: plugAndPlayState)]
            + readers.map { ReaderState(name: $0.name, currentState: $0.lastState) }
    }

    /// `SCardGetStatusChange` returned: the cards that came and went, and whether the reader list must be read
    /// again.
    mutating func statesChanged(_ states: [ReaderState]) -> (events: [ReaderEvent], relist: Bool) {
        var events: [ReaderEvent] = []
        var relist = false
        for state in states {
            if state.name == ReaderState.plugAndPlayName {
                if state.eventState & ReaderStateFlags.changed != 0 {
                    relist = true
                }
                plugAndPlayState = state.eventState & ~ReaderStateFlags.changed
                continue
            }
            guard let index = readers.firstIndex(where: { $0.name == state.name }) else { continue }
            if state.eventState & (ReaderStateFlags.unknown | ReaderStateFlags.unavailable) != 0 {
                relist = true
            }
            events += cardStateChanged(at: index, to: state)
        }
        return (events, relist)
    }

    private mutating func cardStateChanged(at index: Int, to state: ReaderState) -> [ReaderEvent] {
        var events: [ReaderEvent] = []
        let present = ReaderStateFlags.isCardPresent(state.eventState)
        let count = ReaderStateFlags.eventCount(state.eventState)
        let reader = readers[index]
        if reader.isCardPresent && (!present || count != reader.eventCount) {
            events.append(.cardRemoved(reader: reader.name))
        }
        if present && (!reader.isCardPresent || count != reader.eventCount) {
            events.append(.cardPresented(reader: reader.name, atr: state.atr, eventCount: count))
        }
        readers[index].lastState = state.eventState & ~ReaderStateFlags.changed
        readers[index].isCardPresent = present
        readers[index].eventCount = count
        return events
    }

    /// The context died: report it, then every card and reader as gone, and forget them.
    mutating func serviceLost(_ error: PCSCError) -> [ReaderEvent] {
        var events: [ReaderEvent] = [.serviceLost(error)]
        events += readersListed([])
        plugAndPlayState = 0
        return events
    }
}
