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
    }

    private let state = Mutex(State())

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
