import Glibc
import Synchronization

/// What a presented card saw and when, on the system's monotonic clock (`CLOCK_MONOTONIC`, the clock every
/// process on the machine shares): the tag's own view of a tap, for latency benchmarks (docs/development.md,
/// "Tap latency").
///
/// The session thread only appends to memory while the card is present; the entries are read once it is gone,
/// so recording does not slow the card down.
public final class CardTimeline: Sendable {
    /// One thing the card saw.
    public enum Event: String, Sendable {
        /// vpcd powered the card on or reset it.
        case powered
        /// The card sent its ATR (vpcd asks for it when powering the card and when polling its presence).
        case atr
        /// A command APDU arrived.
        case command
        /// The card answered a command APDU.
        case answered
        /// The card left the reader.
        case gone
    }

    /// One entry: the event, its time in nanoseconds on `CLOCK_MONOTONIC`, and the APDU it concerns.
    public struct Entry: Sendable, Hashable {
        /// The event.
        public var event: Event
        /// `CLOCK_MONOTONIC` in nanoseconds.
        public var nanoseconds: UInt64
        /// The command or response APDU, for `command` and `answered`; empty otherwise.
        public var apdu: [UInt8]
    }

    private let recorded = Mutex<[Entry]>([])

    /// Creates an empty timeline.
    public init() {}

    /// What was recorded so far, in order.
    public var entries: [Entry] {
        recorded.withLock { $0 }
    }

    /// The current time on `CLOCK_MONOTONIC`, in nanoseconds.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    func record(_ event: Event, _ apdu: [UInt8] = []) {
        let entry = Entry(event: event, nanoseconds: Self.now(), apdu: apdu)
        recorded.withLock { $0.append(entry) }
    }
}
