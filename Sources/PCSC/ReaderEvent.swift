/// Something that happened to the readers pcscd knows, as reported by ``ReaderWatcher``.
public enum ReaderEvent: Sendable, Hashable {
    /// A reader appeared (also reported for every reader present when watching starts or pcscd comes back).
    case readerAdded(String)
    /// A reader went away (a card in it is first reported removed).
    case readerRemoved(String)
    /// A card was presented: the reader, the card's ATR, and the reader's event counter at that moment, which
    /// tells a new presentation from an old one even when a quick swap was never seen empty.
    case cardPresented(reader: String, atr: [UInt8], eventCount: UInt16)
    /// The card left the reader.
    case cardRemoved(reader: String)
    /// pcscd cannot be reached (stopped, restarting, not installed); the watcher keeps trying with backoff.
    /// Cards and readers it knew are reported removed right after.
    case serviceLost(PCSCError)
    /// pcscd is reachable again; readers and cards are reported added and presented afresh.
    case serviceBack
    /// The watcher is waiting and well: reported once the readers present are listed, after every wait slice
    /// (2 s) that saw no change, and after every failed attempt to reach pcscd. While the watcher and whoever
    /// handles its events are alive, some event arrives at least every few seconds; the router feeds the
    /// service manager's watchdog from them (docs/operations.md, "Readiness and the watchdog").
    case heartbeat
}
