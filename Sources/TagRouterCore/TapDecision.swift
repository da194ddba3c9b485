import TagRules

/// What the router knows about a tap besides the tag it read, gathered before it decides: what the SUN counter
/// store said of the tag's message, whether the reader is locked out or held by `learn`, and the time. The
/// gathering does the I/O; ``Presentations/decide(_:serial:facts:)`` is then values in, a value out.
struct TapFacts: Sendable {
    /// What the SUN counter store said of the tag's verified message.
    enum SUNCounter: Sendable, Equatable {
        /// No verified message, or no store (a dry run).
        case none
        /// A counter above every one recorded for its UID: spent now.
        case fresh
        /// Not above the highest recorded (a copied URL), or the store could not be used (a door fails closed).
        case replayed
    }

    var sunCounter: SUNCounter
    /// The reader's lockout now, and the rule in force that set it; nil: not locked.
    var lock: (rule: Rule, index: Int)?
    /// Whether `tagrouter learn` held the reader when the tag arrived (``LearnClaim``).
    var isHeldByLearn: Bool
    /// The current time on the router's clock.
    var now: ContinuousClock.Instant
}

/// How a tap that was read goes on: it ended with an outcome, or it dispatches.
enum TapDecision: Sendable {
    /// Nothing to dispatch: ignored, held by `learn`, continued, superseded or suppressed.
    case ended(TapOutcome)
    /// Dispatch the tag's matched rules (and its refusal's `denied:`), as a tap or as the return of a presentation.
    case dispatch(ReadTag, returning: String?)
}

extension Presentations {
    /// Decides what a tag that was read leads to (docs/development.md, "The path of one tap"): the presentation it
    /// continues or returns to, a replayed SUN message's refusal, the reader's lockout, `learn`'s hold, and
    /// cooldown. Every input is a value; the only state is this value's own.
    /// - Parameters:
    ///   - read: the tag as read and matched.
    ///   - serial: the presentation serial ``cardPresented(reader:eventCount:)`` returned.
    ///   - facts: what the router gathered about the tap.
    /// - Returns: the outcome, or the tag to dispatch.
    mutating func decide(_ read: ReadTag, serial: UInt64, facts: TapFacts) -> TapDecision {
        var tag = read
        let reader = tag.tag.reader
        let arrival = arrived(reader: reader, serial: serial, identity: tag.identity, now: facts.now)
        if facts.sunCounter == .replayed { tag.refuseAsReplay() }
        if let lock = facts.lock { tag.refuseAsLockedOut(by: lock.rule, index: lock.index) }
        guard !tag.matches.isEmpty || tag.refusal != nil else { return .ended(.ignored(tag.tag)) }
        if facts.isHeldByLearn { return .ended(.heldByLearn(tag.tag)) }
        // The refusing rule's cooldown when a door rule refused the tag (the matched rules are `continue` ones).
        guard let deciding = tag.refusal?.rule ?? tag.matches.first?.rule else { return .ended(.ignored(tag.tag)) }
        let rules = tag.matches.map(\.rule.name) + (tag.refusal.map { [$0.rule.name] } ?? [])
        var returning: String?
        switch arrival {
        case .tap: break
        case .continued(let id):
            // Back within the grace: the same presentation goes on, with no tap and no event.
            settle(reader: reader, serial: serial)
            return .ended(.continued(tag.tag, rules: rules, presentationID: id))
        case .returned(let id): returning = id
        }
        // A return within the rule's window is not a repeated tap: no cooldown applies to it.
        let cooldown = returning == nil ? deciding.cooldown : .zero
        switch tagIdentified(
            reader: reader, serial: serial, identity: tag.identity, cooldown: cooldown, now: facts.now)
        {
        case .ignore: return .ended(.superseded(tag.tag, rules: rules))
        case .suppressInCooldown(let since): return .ended(.suppressed(tag.tag, rules: rules, since: since))
        case .dispatch: return .dispatch(tag, returning: returning)
        }
    }
}

extension ReadTag {
    /// A replayed SUN message (docs/doors.md, "SUN: tags that prove themselves"): the rules that required the message
    /// match no more, the first of them refuses the tag, and a door rule that refused it already refuses it as a
    /// replay.
    mutating func refuseAsReplay() {
        if let replay = Refusal.replay(of: matches) {
            (matches, refusal) = (replay.matches, replay.refusal)
        } else if let refusal, refusal.rule.requiresSUN {
            self.refusal = Refusal(index: refusal.index, rule: refusal.rule, reason: .replay)
        }
    }

    /// A locked-out reader (docs/doors.md, "Lockout"): the rule that locked it refuses the tag as `locked-out`,
    /// whatever matched, and only the `continue: true` rules that are not doors still run.
    mutating func refuseAsLockedOut(by rule: Rule, index: Int) {
        matches = matches.filter { $0.rule.continues && !$0.rule.isDoor }
        refusal = Refusal(index: index, rule: rule, reason: .lockedOut)
    }
}
