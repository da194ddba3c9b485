import Logging
import Synchronization
import TagRules

extension Router {
    /// Changes ``Presentations`` and carries out what the change asks for, both under its lock: the one way the
    /// router changes its reader state. Carrying out under the lock keeps the order the value decided in (a
    /// presentation's `held` then its `removed` join its chain in that order, a timer is set before it can be
    /// cancelled), and costs little: setting a timer or chaining an event starts a task, and the readers' presence
    /// goes to callbacks that only hand it on (``Configuration/readersChanged``).
    /// - Parameter change: the change; it may return a result.
    /// - Returns: the change's result.
    @discardableResult
    func updatePresentations<Result>(_ change: (inout Presentations) -> Result) -> Result {
        presentations.withLock { presentations in
            let result = change(&presentations)
            carry(presentations.takeEffects())
            return result
        }
    }

    /// Carries out the effects of a change of ``Presentations``, in order.
    private func carry(_ effects: [Presentations.Effect]) {
        for effect in effects {
            switch effect {
            case .setTimer(let id, let deadline):
                runs.setTimer(id, at: deadline) { [self] in
                    let now = configuration.now()
                    guard let verdict = updatePresentations({ $0.timerFired(id, now: now) }) else { return }
                    logger.debug(
                        verdict.isGrace ? "presentation.grace_ended" : "presentation.held_due",
                        metadata: ["presentation.verdict": "\(verdict.rawValue)"])
                }
            case .cancelTimer(let id):
                runs.cancelTimer(id)
            case .fire(let event):
                runs.chain(id: event.context.presentationID) { [self] in await carryOut(event) }
            case .readersChanged(let readers):
                configuration.readersChanged(readers)
            }
        }
    }
}
