public import StateStore
import Synchronization

/// What the console's Live page is told as it happens.
public enum LiveEvent: Sendable, Hashable {
    /// A tap ended.
    case tap(LiveTap)
    /// A reader appeared, or a tag was put on a reader or left it.
    case presence
}

/// The router's taps and presence, for the console (docs/console.md, "Live"): the router publishes into it on the
/// tap's thread, and each browser on the Live page reads its own bounded buffer. A publication never waits: when a
/// browser's buffer is full (a slow browser, a stalled connection) the event is dropped for that browser and
/// counted (`tagrouter_console_dropped_total`); the tap goes on.
public final class LiveFeed: LiveTapSink, Sendable {
    /// How many events wait for one browser before the next are dropped.
    public static let bufferSize = 256
    /// How many recent taps the Live page starts with.
    public static let recentCount = 50

    struct State {
        var subscribers: [Int: AsyncStream<LiveEvent>.Continuation] = [:]
        var nextID = 0
        var recent: [LiveTap] = []
        var readers: [String: ReaderState] = [:]
    }

    let state = Mutex(State())
    let droppedCount = Atomic<Int>(0)
    let onDrop: @Sendable () -> Void

    /// Creates a feed.
    /// - Parameter onDrop: called for each event dropped for a slow browser (the router counts it).
    public init(onDrop: @escaping @Sendable () -> Void = {}) {
        self.onDrop = onDrop
    }

    /// How many events were dropped for slow browsers so far.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Takes one tap: kept among the recent ones, noted on its reader, handed to every browser without waiting.
    /// - Parameter tap: the tap.
    public func publish(_ tap: LiveTap) {
        let (subscribers, namesTag) = state.withLock { state in
            state.recent.append(tap)
            if state.recent.count > Self.recentCount { state.recent.removeFirst(state.recent.count - Self.recentCount) }
            state.readers[tap.record.reader, default: ReaderState(name: tap.record.reader)].note(tap)
            return (Array(state.subscribers.values), state.readers[tap.record.reader]?.hasTag == true)
        }
        send(.tap(tap), to: subscribers)
        // The tap names the tag still on the reader: the presence list says which it is.
        if namesTag { send(.presence, to: subscribers) }
    }

    /// Takes the router's report of its readers (``TagRouterCore/Router/Configuration/readersChanged``): every
    /// reader present and whether a tag is on it. A reader missing from the report has gone; the console keeps its
    /// last tap.
    /// - Parameter present: every reader present now, and whether a tag is on it.
    public func readersChanged(_ present: [String: Bool]) {
        let subscribers = state.withLock { state in
            for name in Set(state.readers.keys).union(present.keys) {
                state.readers[name, default: ReaderState(name: name)].isConnected = present[name] != nil
                state.readers[name]?.hasTag = present[name] ?? false
                if present[name] != true { state.readers[name]?.tagOnIt = nil }
            }
            return Array(state.subscribers.values)
        }
        send(.presence, to: subscribers)
    }

    /// The recent taps, newest first.
    public var recentTaps: [LiveTap] { state.withLock { Array($0.recent.reversed()) } }

    /// Every reader seen, by name.
    public var readers: [ReaderState] { state.withLock { $0.readers.values.sorted { $0.name < $1.name } } }

    /// A browser's view of the feed: the events from now on, at most ``bufferSize`` waiting; the subscription
    /// ends when the stream is dropped or ``finish()`` is called.
    /// - Returns: the events.
    public func subscribe() -> AsyncStream<LiveEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: LiveEvent.self, bufferingPolicy: .bufferingOldest(Self.bufferSize))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// How many browsers are subscribed.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Ends every subscription (graceful shutdown).
    public func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private func send(_ event: LiveEvent, to subscribers: [AsyncStream<LiveEvent>.Continuation]) {
        for subscriber in subscribers {
            if case .dropped = subscriber.yield(event) {
                droppedCount.add(1, ordering: .relaxed)
                onDrop()
            }
        }
    }
}

/// What the console knows of one reader: whether it is present and a tag is on it (the router's reports, its one
/// reader state), and its last taps.
public struct ReaderState: Sendable, Hashable {
    /// The reader's name.
    public var name: String
    /// Whether the reader is present now, as the router last reported.
    public var isConnected = false
    /// Whether a tag is on it now.
    public var hasTag = false
    /// The last tap on it.
    public var lastTap: LiveTap?
    /// The last tap on it that failed to read, and why.
    public var lastError: LiveTap?
    /// The tag on it now, as its last tap named it (its enrolled name, else its UID), while it stays there.
    public var tagOnIt: TapRecord?

    /// A reader known by name only.
    /// - Parameter name: its name.
    public init(name: String) {
        self.name = name
    }

    mutating func note(_ tap: LiveTap) {
        lastTap = tap
        if hasTag { tagOnIt = tap.record }
        if tap.record.outcome == .failed { lastError = tap }
    }
}
