import Synchronization

/// A channel that passes commands on and counts them, for ``TagWriteResult/commands``.
final class CountingChannel<Base: CardChannel>: CardChannel {
    let base: Base
    private let count = Mutex(0)

    init(_ base: Base) {
        self.base = base
    }

    /// The commands sent so far.
    var commands: Int { count.withLock { $0 } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        count.withLock { $0 += 1 }
        return try await base.transmit(command)
    }
}
