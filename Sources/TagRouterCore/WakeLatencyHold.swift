import Foundation
import Synchronization

/// Keeps idle CPUs from sleeping while a tap is in progress, through the kernel's CPU latency request
/// (PM QoS: `/dev/cpu_dma_latency`; docs/cli.md, "Idle CPUs during a tap", and docs/development.md, "Tap
/// latency").
///
/// A tap is a chain of hand-offs between processes and threads: pcscd, the reader's driver, the card thread,
/// the HTTP client's event loop, the receiver. Each one that lands on an idle CPU first waits for that CPU to
/// wake up: tens of microseconds from a deep C-state or, in a virtual machine, from a halted virtual CPU. While
/// at least one tap holds it, this asks for a wake-up latency of 0, which the kernel's idle loop meets by
/// polling instead of sleeping; when the last tap lets go, the request goes back to "no constraint". A tap lasts
/// a few milliseconds, so the polling costs that long on the idle CPUs and nothing between taps.
///
/// A hold ends when its tap is reported, or after ``longest`` (half a second by default) for a tap whose action
/// runs a long command: the CPUs are not kept polling for the whole command. The request lives as long as the
/// file stays open, so the file is opened once and kept; writing a new value changes the request. Only root may
/// open it by default.
public final class WakeLatencyHold: Sendable {
    private let descriptor: Int32
    private let state: Mutex<State>
    /// The longest a hold lasts: a tap whose action runs a long command lets go after this.
    let longest: Duration

    private struct State {
        var holders = 0
        /// Bumped when holds are ended by ``expire(now:)``: releases from before then are ignored.
        var generation: UInt64 = 0
        var since: ContinuousClock.Instant?
        var isClosed = false
    }

    /// One tap's hold, from ``acquire()``; give it back to ``release(_:)``.
    public struct Holding: Sendable {
        let generation: UInt64
    }

    /// The path of the CPU latency request file.
    public static let path = "/dev/cpu_dma_latency"
    /// The value meaning "no constraint" (the kernel's `PM_QOS_CPU_LATENCY_DEFAULT_VALUE`, 2000 s in µs).
    static let noConstraint: Int32 = 2_000_000_000

    /// Opens the request file and places a request that constrains nothing yet.
    /// - Parameters:
    ///   - path: the request file; tests pass their own.
    ///   - longest: the longest a hold lasts; checked once a second by a thread of its own, so a hold may last
    ///     up to a second longer.
    /// - Throws: ``Unavailable`` naming the file and the reason (no such file, not permitted).
    public init(path: String = WakeLatencyHold.path, longest: Duration = .milliseconds(500)) throws(Unavailable) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Unavailable(path: path, reason: String(cString: strerror(errno))) }
        guard Self.request(Self.noConstraint, on: descriptor) else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Unavailable(path: path, reason: reason)
        }
        self.descriptor = descriptor
        self.longest = longest
        self.state = Mutex(State())
        // The watch needs no wake-up at the start of a tap, which would cost the tap itself: it looks once a
        // second, which an idle router can afford.
        let thread = Thread { [weak self] in
            while true {
                Thread.sleep(forTimeInterval: 1)
                guard let hold = self, hold.expire(now: .now) else { return }
            }
        }
        thread.name = "cpu-wake-hold"
        thread.start()
    }

    deinit {
        state.withLock { $0.isClosed = true }
        close(descriptor)
    }

    /// Starts holding: the first holder sets the request to 0 µs.
    /// - Returns: the hold, for ``release(_:)``.
    public func acquire() -> Holding {
        state.withLock { state in
            state.holders += 1
            if state.holders == 1 {
                state.since = .now
                _ = Self.request(0, on: descriptor)
            }
            return Holding(generation: state.generation)
        }
    }

    /// Stops holding: when the last holder lets go the request constrains nothing again. A hold already ended
    /// for lasting too long is not counted again.
    public func release(_ holding: Holding) {
        state.withLock { state in
            guard holding.generation == state.generation, state.holders > 0 else { return }
            state.holders -= 1
            if state.holders == 0 { end(&state) }
        }
    }

    /// Ends every hold that has lasted longer than ``longest`` at `now`.
    /// - Returns: `false` once the request file is closed.
    @discardableResult
    func expire(now: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            if let since = state.since, now - since > longest {
                state.holders = 0
                state.generation += 1
                end(&state)
            }
            return true
        }
    }

    private func end(_ state: inout State) {
        state.since = nil
        _ = Self.request(Self.noConstraint, on: descriptor)
    }

    /// How many holders there are now.
    public var holderCount: Int { state.withLock { $0.holders } }

    /// Writes a request in microseconds, as the 32-bit binary value the file takes.
    private static func request(_ microseconds: Int32, on descriptor: Int32) -> Bool {
        var value = microseconds
        return withUnsafeBytes(of: &value) { write(descriptor, $0.baseAddress, $0.count) } == 4
    }

    /// The request file could not be opened or written.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The file.
        public var path: String
        /// Why, as the system said it.
        public var reason: String

        /// `PATH: REASON`.
        public var description: String { "\(path): \(reason)" }
    }
}
