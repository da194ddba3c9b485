import StateStore
import Synchronization
import TagActions

@testable import TagRouterCore

/// A ``TapHistory`` in memory.
final class MemoryHistory: TapHistory {
    private let rows = Mutex<[TapRecord]>([])

    /// The taps recorded, in order.
    var taps: [TapRecord] { rows.withLock { $0 } }

    func recordTap(_ tap: TapRecord) throws {
        rows.withLock { $0.append(tap) }
    }
}
