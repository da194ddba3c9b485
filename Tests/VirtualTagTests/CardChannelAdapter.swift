import NFCTag
import Synchronization
import VirtualTag

/// A virtual card driven directly as a `CardChannel`, without vpcd: counts commands and can vanish after a
/// given number of answers, the card keeping whatever was written until then.
final class CardChannelAdapter<Card: VirtualCard>: CardChannel {
    /// Thrown for a command after the card vanished.
    struct Vanished: Error {}

    private struct State {
        var card: Card
        var commands: [[UInt8]] = []
    }

    private let state: Mutex<State>
    private let limit: Int?

    /// Creates a channel to `card` that answers at most `limit` commands.
    init(_ card: Card, answeringAtMost limit: Int? = nil) {
        state = Mutex(State(card: card))
        self.limit = limit
    }

    /// The card as it is now.
    var card: Card { state.withLock { $0.card } }
    /// The commands answered or refused so far.
    var commands: [[UInt8]] { state.withLock { $0.commands } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try state.withLock { state in
            if let limit, state.commands.count >= limit { throw Vanished() }
            state.commands.append(command)
            return state.card.respond(to: command)
        }
    }
}
