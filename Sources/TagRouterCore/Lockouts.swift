import TagRules

/// The lockout state of every reader (docs/doors.md, "Lockout"): the recent refusals of each rule with a
/// `lockout:` on each reader, and the readers locked now. A value-type state machine driven by the router with
/// its clock, so unit tests move time themselves.
///
/// A reader is locked when a rule's refusals on it reach the rule's `after` within its `within`; it then refuses
/// every tag until `for` has passed since. Refusals during a lockout are not counted, so it ends on time; the
/// count starts afresh after it.
struct Lockouts {
    /// A locked reader: the rule that locked it and until when.
    struct Lock: Equatable {
        /// The rule whose refusals locked the reader.
        var rule: String
        /// When the lockout ends.
        var until: ContinuousClock.Instant
    }

    /// The refusal times of each (reader, rule) within the rule's window, oldest first.
    private var refusals: [Key: [ContinuousClock.Instant]] = [:]
    /// The readers locked now.
    private var locks: [String: Lock] = [:]

    private struct Key: Hashable {
        var reader: String
        var rule: String
    }

    /// The lock of `reader` at `now`, if it is locked; an ended lockout is forgotten.
    mutating func lock(of reader: String, now: ContinuousClock.Instant) -> Lock? {
        guard let lock = locks[reader] else { return nil }
        guard now < lock.until else {
            locks[reader] = nil
            return nil
        }
        return lock
    }

    /// The readers locked at `now`, by name (the status document's `lockouts`).
    func locked(now: ContinuousClock.Instant) -> [(reader: String, lock: Lock)] {
        locks.filter { now < $0.value.until }.map { (reader: $0.key, lock: $0.value) }.sorted { $0.reader < $1.reader }
    }

    /// Counts a refusal by `rule` on `reader` at `now`.
    /// - Returns: the new lock when this refusal locks the reader; nil otherwise (no `lockout:`, not enough
    ///   refusals yet, or locked already).
    mutating func refused(
        reader: String, rule: String, lockout: Lockout?, now: ContinuousClock.Instant
    ) -> Lock? {
        guard let lockout, lock(of: reader, now: now) == nil else { return nil }
        let key = Key(reader: reader, rule: rule)
        var times = refusals[key, default: []].filter { now - $0 < lockout.within }
        times.append(now)
        guard times.count >= lockout.after else {
            refusals[key] = times
            return nil
        }
        refusals[key] = nil
        let lock = Lock(rule: rule, until: now + lockout.duration)
        locks[reader] = lock
        return lock
    }

    /// Forgets what the rules in force no longer back: counts and locks of rules removed or without `lockout:`
    /// since a reload.
    /// - Parameter lockouts: each rule's `lockout:`, by rule name.
    mutating func keep(_ lockouts: [String: Lockout]) {
        refusals = refusals.filter { lockouts[$0.key.rule] != nil }
        locks = locks.filter { lockouts[$0.value.rule] != nil }
    }
}
