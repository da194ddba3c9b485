import NFCTag
import Synchronization
import VirtualTag

/// A `CardChannel` straight onto a virtual card, no pcscd in between: the NFCTag readers and writers talk to the
/// emulator's command handling. The card can leave after a number of commands, as a tag ripped away does.
final class CardChannelOnCard<Card: VirtualCard>: CardChannel {
    /// The error of a card that left.
    struct Removed: Error {}

    private let state: Mutex<(card: Card, sent: Int)>
    /// The card answers this many commands, then every command fails.
    let limit: Int?

    init(_ card: Card, answeringAtMost limit: Int? = nil) {
        state = Mutex((card, 0))
        self.limit = limit
    }

    /// The card as it is now.
    var card: Card { state.withLock { $0.card } }
    /// The commands sent so far (including the one that found the card gone).
    var sent: Int { state.withLock { $0.sent } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try state.withLock { state in
            state.sent += 1
            if let limit, state.sent > limit { throw Removed() }
            return state.card.respond(to: command)
        }
    }
}
