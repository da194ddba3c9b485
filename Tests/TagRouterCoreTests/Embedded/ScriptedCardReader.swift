import NFCTag
import Synchronization

@testable import TagRouterCore

/// A ``CardReader`` that answers each read from a script, in order, per reader; a read can be held until the
/// test releases it, to put events (a removal, a second card) between the start and the end of a read.
final class ScriptedCardReader: CardReader {
    /// One scripted answer.
    enum Answer: Sendable {
        case tag(TagReading)
        case failure(any Error)
    }

    private struct State {
        var answers: [String: [Answer]] = [:]
        var reads: [String] = []
        var resets = 0
        var held: [String: CheckedContinuation<Void, Never>] = [:]
        var holding: Set<String> = []
        var tapsEnded: [String] = []
    }

    private let state = Mutex(State())
    /// The reader's own commands sent over each reader's tap connection, in order.
    let channels = Mutex<[String: RecordingChannel]>([:])

    /// The connection of `reader`'s taps (made on first use).
    func channel(_ reader: String) -> RecordingChannel {
        channels.withLock { channels in
            if let known = channels[reader] { return known }
            let channel = RecordingChannel()
            channels[reader] = channel
            return channel
        }
    }

    /// The readers whose taps were ended, in order.
    var tapsEnded: [String] { state.withLock { $0.tapsEnded } }

    func tapConnection(reader: String) -> (any CardChannel)? {
        channel(reader)
    }

    func endTap(reader: String, connection: (any CardChannel)?) {
        state.withLock { $0.tapsEnded.append(reader) }
    }

    /// Queues an answer for the next read on `reader`.
    func script(_ answer: Answer, on reader: String) {
        state.withLock { $0.answers[reader, default: []].append(answer) }
    }

    /// Makes the next read on `reader` wait until ``release(_:)``.
    func hold(_ reader: String) {
        state.withLock { _ = $0.holding.insert(reader) }
    }

    /// Lets a held read on `reader` finish.
    func release(_ reader: String) {
        let continuation = state.withLock { $0.held.removeValue(forKey: reader) }
        continuation?.resume()
    }

    /// Whether a read on `reader` is waiting for ``release(_:)``.
    func isHolding(_ reader: String) -> Bool {
        state.withLock { $0.held[reader] != nil }
    }

    /// The readers read so far, in order.
    var reads: [String] { state.withLock { $0.reads } }
    /// How many times the router reset the reader.
    var resets: Int { state.withLock { $0.resets } }

    func read(reader: String, atr: [UInt8]) async throws -> TagReading {
        let mustHold = state.withLock { state -> Bool in
            state.reads.append(reader)
            return state.holding.remove(reader) != nil
        }
        if mustHold {
            await withCheckedContinuation { continuation in
                state.withLock { $0.held[reader] = continuation }
            }
        }
        let answer = state.withLock { state -> Answer? in
            guard var queue = state.answers[reader], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            state.answers[reader] = queue
            return first
        }
        switch answer {
        case .tag(let reading): return reading
        case .failure(let error): throw error
        case nil: throw NFCTagError(.tagRemoved, "no answer scripted for \(reader)")
        }
    }

    func reset() async {
        state.withLock { $0.resets += 1 }
    }
}

/// A card connection that records the commands sent over it and answers each from a rule: `90 00` by default.
final class RecordingChannel: CardChannel {
    private let state = Mutex<(commands: [[UInt8]], marks: [Int])>(([], []))
    /// How a command is answered; a thrown error is the card gone.
    let answer = Mutex<@Sendable ([UInt8]) throws -> [UInt8]>({ _ in [0x90, 0x00] })
    /// Called at each command; its value is kept beside it (how many actions had started, say).
    let mark = Mutex<@Sendable () -> Int>({ 0 })

    /// The commands sent, in order.
    var commands: [[UInt8]] { state.withLock { $0.commands } }
    /// What ``mark`` returned at each command.
    var marks: [Int] { state.withLock { $0.marks } }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let marked = mark.withLock { $0 }()
        state.withLock {
            $0.commands.append(command)
            $0.marks.append(marked)
        }
        return try answer.withLock { $0 }(command)
    }
}
