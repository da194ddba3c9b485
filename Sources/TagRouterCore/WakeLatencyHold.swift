import Foundation
public import ServiceLifecycle
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
/// A hold ends when its tap is reported. As a `Service` it also checks once a second that the request has not
/// been held without a break for longer than ``longest`` (half a second by default), and ends it if so: a tap
/// whose action runs a long command does not keep the CPUs polling for the whole command. The request lives as
/// long as the file stays open, so the file is opened once and kept; writing a new value changes the request.
/// Only root may open it by default.
public final class WakeLatencyHold: Service, Sendable {
    private let descriptor: Int32
    private let state = Mutex(State())
    /// How long the request may be held without a break before ``expire(now:)`` ends it.
    let longest: Duration

    private struct State {
        var holders = 0
        /// Bumped when ``expire(now:)`` ends the holds: releases of holds taken before then are ignored.
        var generation: UInt64 = 0
        /// When the request was last set to 0; `nil` while nothing holds it.
        var since: ContinuousClock.Instant?
    }

    /// One tap's hold, from ``acquire()``.
    public struct Holding: Sendable {
        let hold: WakeLatencyHold
        let generation: UInt64

        /// Lets go: when the last holder does, the request constrains nothing again. A hold that
        /// ``expire(now:)`` already ended is not counted again.
        public func release() {
            hold.release(self)
        }
    }

    /// The path of the CPU latency request file.
    public static let path = "/dev/cpu_dma_latency"
    /// The value meaning "no constraint" (the kernel's `PM_QOS_CPU_LATENCY_DEFAULT_VALUE`, 2000 s in µs).
    static let noConstraint: Int32 = 2_000_000_000

    /// Opens the request file and places a request that constrains nothing yet.
    /// - Parameters:
    ///   - path: the request file; tests pass their own.
    ///   - longest: how long the request may be held without a break; ``run()`` checks once a second, so it may
    ///     be held up to a second longer.
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
    }

    deinit {
        close(descriptor)
    }

    /// Ends over-long holds until graceful shutdown or cancellation. It looks once a second rather than being
    /// woken at the start of each tap, which would cost the tap itself.
    public func run() async {
        while !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            if Task.isCancelled { return }
            expire(now: .now)
        }
    }

    /// The service's name in lifecycle logs.
    public var description: String { "WakeLatencyHold" }

    /// Starts holding: the first holder sets the request to 0 µs.
    /// - Returns: the hold; ``Holding/release()`` gives it back.
    public func acquire() -> Holding {
        state.withLock { state in
            state.holders += 1
            if state.holders == 1 {
                state.since = .now
                _ = Self.request(0, on: descriptor)
            }
            return Holding(hold: self, generation: state.generation)
        }
    }

    private func release(_ holding: Holding) {
        state.withLock { state in
            guard holding.generation == state.generation, state.holders > 0 else { return }
            state.holders -= 1
            if state.holders == 0 { end(&state) }
        }
    }

    /// Ends all holds if, at `now`, the request has been held without a break for longer than ``longest``.
    func expire(now: ContinuousClock.Instant) {
        state.withLock { state in
            guard let since = state.since, now - since > longest else { return }
            state.holders = 0
            state.generation += 1
            end(&state)
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
