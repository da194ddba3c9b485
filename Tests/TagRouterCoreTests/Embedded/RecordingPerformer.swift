import Synchronization
import TagActions
import TagRules

/// An ``ActionPerforming`` that records what it was asked to do and answers as a real executor would: a command
/// exits 0 (after ``commandTime``), a webhook is queued. With ``hangs`` set, every action waits until its task is
/// cancelled.
final class RecordingPerformer: ActionPerforming {
    /// One action the router asked for.
    struct Performed: Sendable {
        var action: RenderedAction
        var rule: String
        var document: EventDocument
    }

    private let performed = Mutex<[Performed]>([])
    private let nextDelivery = Mutex<Int64>(1)
    private let steps = Mutex<[String]>([])
    let hangs: Bool
    let commandTime: Duration

    init(hangs: Bool = false, commandTime: Duration = .zero) {
        self.hangs = hangs
        self.commandTime = commandTime
    }

    /// `start X` and `end X` for each command, X its last argument, in the order they happened.
    var commandSteps: [String] { steps.withLock { $0 } }

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
        case .run(let argv, _, _, _):
            steps.withLock { $0.append("start \(argv.last ?? "")") }
            try? await Task.sleep(for: commandTime)
            steps.withLock { $0.append("end \(argv.last ?? "")") }
            return ActionOutcome(kind: action.kind, result: .finished(.exited(0), timedOut: false))
        case .open, .type:
            return ActionOutcome(kind: action.kind, result: .finished(.exited(0), timedOut: false))
        case .mqtt:
            return ActionOutcome(kind: .mqtt, result: .published)
        }
    }
}
