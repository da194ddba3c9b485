import Synchronization
import TagRules

extension Router {
    /// Changes ``Presentations`` under its lock, then carries out what the change asks for, outside the lock: the
    /// one way the router changes its reader state.
    /// - Parameter change: the change; it may return a result.
    /// - Returns: the change's result.
    @discardableResult
    func updatePresentations<Result>(_ change: (inout Presentations) -> Result) -> Result {
        let (result, effects) = presentations.withLock { presentations in
            let result = change(&presentations)
            return (result, presentations.takeEffects())
        }
        carry(effects)
        return result
    }

    /// Carries out the effects of a change of ``Presentations``, in order.
    private func carry(_ effects: [Presentations.Effect]) {
        for effect in effects {
            switch effect {
            case .setTimer(let id, let deadline):
                runs.setTimer(id, at: deadline) { [self] in
                    let now = configuration.now()
                    updatePresentations { $0.timerFired(id, now: now) }
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
