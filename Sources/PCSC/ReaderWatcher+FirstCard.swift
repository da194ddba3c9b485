extension ReaderWatcher {
    /// Waits for a card on a reader that `accepts` (a card already there counts), then stops watching and releases
    /// the watcher's context before it returns.
    ///
    /// Commands such as `tagrouter read --wait` exit right after: leaving the context to be released by its
    /// `deinit` would queue `SCardReleaseContext` on the watcher's thread while the process exits, and libpcsclite
    /// tears its client state down at exit under any call still running.
    /// - Parameter accepts: whether a reader name is one to wait on.
    /// - Returns: the reader and the card's ATR; `nil` when the task was cancelled or the watcher stopped first.
    public func firstCard(where accepts: (String) -> Bool) async -> (reader: String, atr: [UInt8])? {
        var events = makeAsyncIterator()
        var found: (reader: String, atr: [UInt8])?
        while found == nil, let event = await events.next() {
            if case .cardPresented(let reader, let atr, _) = event, accepts(reader) {
                found = (reader, atr)
            }
        }
        stop()
        // The stopped iterator releases its context and ends.
        _ = await events.next()
        return found
    }
}
