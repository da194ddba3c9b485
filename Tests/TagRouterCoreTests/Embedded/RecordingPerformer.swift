import Synchronization
import TagActions
import TagRules

/// An ``ActionPerforming`` that records what it was asked to do and answers as a real executor would: a command
/// exits 0, a webhook is queued. With ``hangs`` set, every action waits until its task is cancelled.
final class RecordingPerformer: ActionPerforming {
    /// One action the router asked for.
    struct Performed: Sendable {
        var action: RenderedAction
        var rule: String
        var document: EventDocument
    }

    private let performed = Mutex<[Performed]>([])
    private let nextDelivery = Mutex<Int64>(1)
    let hangs: Bool

    init(hangs: Bool = false) {
        self.hangs = hangs
    }

    /// Every action asked for, in the order the calls arrived.
    var actions: [Performed] { performed.withLock { $0 } }

    func perform(_ action: RenderedAction, rule: String, document: EventDocument) async -> ActionOutcome {
        performed.withLock { $0.append(Performed(action: action, rule: rule, document: document)) }
        if hangs {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(60))
            }
            return ActionOutcome(kind: action.kind, result: .failed(reason: "cancelled"))
        }
        switch action {
        case .webhook:
            let delivery = nextDelivery.withLock { value -> Int64 in
                defer { value += 1 }
                return value
            }
            return ActionOutcome(kind: .webhook, result: .queued(delivery: delivery))
        case .run, .open:
            return ActionOutcome(kind: action.kind, result: .finished(.exited(0), timedOut: false))
        }
    }
}
