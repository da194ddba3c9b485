public import ReaderFeedback
import Synchronization

/// A card being presented on a ``VirtualReader``: count what it answered, hold it, remove it.
public final class PresentedCard: Sendable {
    private struct State {
        var commandCount = 0
        var card: any VirtualCard
        var isGone = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var exchanges: [EmulatedExchange] = []
        var lights = ReaderLights()
    }

    private let socket: VPCDSocket
    private let state: Mutex<State>

    init(socket: VPCDSocket, card: some VirtualCard) {
        self.socket = socket
        self.state = Mutex(State(card: card))
    }

    /// How many command APDUs the card has answered (controls such as power on and ATR requests not counted).
    public var commandCount: Int {
        state.withLock { $0.commandCount }
    }

    /// The card as it stands after the last command it answered: a write command's effect shows here, also after
    /// the card is gone (a tag ripped away mid-write keeps what was written before).
    public var card: any VirtualCard {
        state.withLock { $0.card }
    }

    /// Whether the card is still in the reader: `false` once removed, vanished, or vpcd went away.
    public var isPresent: Bool {
        state.withLock { !$0.isGone }
    }

    /// Takes the card away from the reader and waits until its session has ended.
    public func remove() async {
        // Under the lock: once the session has ended its descriptor is closed, and its number may already
        // belong to another socket of this process.
        state.withLock { state in
            if !state.isGone {
                socket.shutdown()
            }
        }
        await waitUntilGone()
    }

    /// Keeps the card in the reader for `duration`, then removes it. Returns early when the card is gone
    /// before (vpcd went away, or the command limit was reached) or the task is cancelled.
    /// - Parameter duration: how long to hold the card.
    public func hold(for duration: Duration) async {
        // Not `withDeadline`: waiting for the card to go does not end when cancelled, so the card is removed
        // before the group waits for it.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: duration) }
            group.addTask { await self.waitUntilGone() }
            await group.next()
            group.cancelAll()
            await remove()
        }
    }

    /// Waits until the card is gone: removed, vanished after its command limit, or vpcd went away.
    public func waitUntilGone() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.isGone { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow {
                continuation.resume()
            }
        }
    }

    /// Every command the reader received while the card was presented, in order: the tag's, and the reader's
    /// own pseudo-APDUs with what they showed.
    public var exchanges: [EmulatedExchange] {
        state.withLock { $0.exchanges }
    }

    /// What the reader's LEDs show now, and whether it beeps by itself when a card arrives.
    public var lights: ReaderLights {
        state.withLock { $0.lights }
    }

    /// What the reader's own commands showed, in order (`led=green beep=100ms×1`).
    public var feedback: [String] {
        exchanges.compactMap(\.shown)
    }

    func answered(_ card: some VirtualCard, command: [UInt8]) {
        state.withLock { state in
            state.commandCount += 1
            state.card = card
            state.exchanges.append(EmulatedExchange(command: command, shown: nil))
        }
    }

    func record(tagCommand: [UInt8]) {
        state.withLock { $0.exchanges.append(EmulatedExchange(command: tagCommand, shown: nil)) }
    }

    /// Carries out a pseudo-APDU as an ACR122U's firmware does, records it and returns the answer.
    func readerCommand(_ command: ACR122UCommand, _ bytes: [UInt8]) -> [UInt8] {
        state.withLock { state in
            let shown = state.lights.apply(command)
            state.exchanges.append(EmulatedExchange(command: bytes, shown: shown))
            switch command {
            case .ledAndBuzzer: return [0x90, state.lights.stateByte]
            case .detectionBeep: return [0x90, 0x00]
            case .firmwareVersion: return Array("ACR122U215".utf8) + [0x90, 0x00]
            }
        }
    }

    /// The session ended: close the descriptor (under the lock, see ``remove()``) and wake the waiters.
    func ended() {
        let waiters = state.withLock { state in
            // Shut down first: a copy of the descriptor inherited by a child process must not keep the
            // connection, and so the card, in the reader.
            socket.shutdown()
            socket.close()
            state.isGone = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// One command the emulated reader received: the tag's, or the reader's own pseudo-APDU with what it showed.
public struct EmulatedExchange: Sendable, Hashable {
    /// The command APDU.
    public var command: [UInt8]
    /// For the reader's own commands, what it showed (``ReaderFeedback/ReaderLights/apply(_:)``); nil for the
    /// tag's.
    public var shown: String?

    /// Whether the reader's firmware answered it.
    public var isReaderCommand: Bool { shown != nil }
}
