import Foundation
import StateStore
import Synchronization
public import TagActions

extension Router {
    /// The readers watched now and whether a tag is on each, sorted by name (the status document's `readers`).
    public func readerStates() -> [StatusDocument.Reader] {
        presentations.withLock { $0.readerPresence }.sorted { $0.key < $1.key }.map { name, isTagPresent in
            StatusDocument.Reader(name: name, state: isTagPresent ? "tag-present" : "ready")
        }
    }

    /// The readers locked out now by a rule's `lockout:`, and until when (the status document's `lockouts`).
    public func lockedReaders() -> [StatusDocument.Lockout] {
        let now = configuration.now()
        let wallNow = Date()
        return lockouts.withLock { $0.locked(now: now) }.map { reader, lock in
            let left = lock.until - now
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            return StatusDocument.Lockout(
                reader: reader, rule: lock.rule, until: Timestamp.rfc3339(wallNow.addingTimeInterval(seconds)))
        }
    }
}
