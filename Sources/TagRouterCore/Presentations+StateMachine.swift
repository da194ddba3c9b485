extension Presentations {
    /// What to do about a card the watcher reported.
    public enum PresentedAction: Sendable, Hashable {
        /// A new presentation: read the tag, then report it with ``Presentations/tagIdentified(reader:serial:identity:cooldown:now:)``.
        case read(serial: UInt64)
        /// The same presentation reported again (the tag rests on the reader): nothing to do.
        case ignore
    }

    /// What to do with a tag that was read and matched.
    public enum IdentifiedAction: Sendable, Hashable {
        /// Dispatch its actions.
        case dispatch
        /// Suppressed: the same tag dispatched on this reader less than `cooldown` ago.
        case suppressInCooldown(since: Duration)
        /// The presentation already dispatched, or ended before the read finished: nothing to do.
        case ignore
    }

    /// A reader reported a card.
    ///
    /// The same event counter as the presentation in progress means the card never left; a different counter
    /// means it was removed and put back between two polls, which is a new presentation.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - eventCount: the reader's event counter (the upper 16 bits of pcsc-lite's `dwEventState`).
    /// - Returns: whether to read the tag.
    public mutating func cardPresented(reader: String, eventCount: UInt16) -> PresentedAction {
        if let current = current[reader], current.eventCount == eventCount {
            return .ignore
        }
        let serial = nextSerial
        nextSerial += 1
        current[reader] = Current(eventCount: eventCount, serial: serial, isSettled: false)
        unidentified[reader] = serial
        tellReaders()
        return .read(serial: serial)
    }

    /// A reader reported its card gone; the presentation ends.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - now: the current time.
    public mutating func cardRemoved(reader: String, now: ContinuousClock.Instant) {
        current[reader] = nil
        cardLeft(reader: reader, now: now)
        tellReaders()
    }

    /// A reader appeared.
    /// - Parameter reader: the reader name.
    /// - Returns: how many readers are present now.
    public mutating func readerAdded(reader: String) -> Int {
        readers.insert(reader)
        tellReaders()
        return readers.count
    }

    /// A reader disappeared (unplugged, or pcscd lost); its presentation ends.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - now: the current time.
    /// - Returns: how many readers are present now.
    @discardableResult
    public mutating func readerRemoved(reader: String, now: ContinuousClock.Instant) -> Int {
        readers.remove(reader)
        current[reader] = nil
        cardLeft(reader: reader, now: now)
        tellReaders()
        return readers.count
    }

    /// A tag of presentation `serial` was read and matched a rule: decide whether to dispatch.
    ///
    /// Call it only for a tag that matched; a tag that matched nothing starts no cooldown.
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - serial: the serial ``cardPresented(reader:eventCount:)`` returned.
    ///   - identity: the tag's identity.
    ///   - cooldown: the matched rule's cooldown; `.zero` disables it.
    ///   - now: the current time.
    /// - Returns: dispatch, suppress, or ignore.
    public mutating func tagIdentified(
        reader: String,
        serial: UInt64,
        identity: TagIdentity,
        cooldown: Duration,
        now: ContinuousClock.Instant
    ) -> IdentifiedAction {
        guard var presentation = current[reader], presentation.serial == serial, !presentation.isSettled else {
            return .ignore
        }
        presentation.isSettled = true
        current[reader] = presentation
        let key = ReaderTag(reader: reader, identity: identity)
        if let last = lastDispatch[key], cooldown > .zero, now - last < cooldown {
            return .suppressInCooldown(since: now - last)
        }
        lastDispatch[key] = now
        longestCooldown = max(longestCooldown, cooldown)
        dispatchesSincePrune += 1
        if dispatchesSincePrune >= Self.pruneInterval {
            prune(now: now)
        }
        return .dispatch
    }

    /// Marks presentation `serial` decided without a dispatch: the tag came back within a followed
    /// presentation's grace and continues it (``arrived(reader:serial:identity:now:)``).
    /// - Parameters:
    ///   - reader: the reader name.
    ///   - serial: the serial ``cardPresented(reader:eventCount:)`` returned.
    public mutating func settle(reader: String, serial: UInt64) {
        guard var presentation = current[reader], presentation.serial == serial else { return }
        presentation.isSettled = true
        current[reader] = presentation
    }

    /// Forgets the dispatches too old to suppress anything, then the oldest ones past `rememberedLimit`, so
    /// months of taps keep memory bounded whatever the cooldowns and however many tags there are.
    /// - Parameter now: the current time.
    public mutating func prune(now: ContinuousClock.Instant) {
        let horizon = longestCooldown
        lastDispatch = lastDispatch.filter { now - $0.value < horizon }
        if lastDispatch.count > rememberedLimit {
            let newest = lastDispatch.sorted { $0.value > $1.value }.prefix(rememberedLimit)
            lastDispatch = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
        }
        dispatchesSincePrune = 0
    }
}
