import FileStatus
public import Foundation
import Synchronization

/// The learn claim of one rules folder as the router sees it (``LearnClaim``), watched rather than read on every
/// tap: each look costs one `stat(2)` of the claim file, and the file is read and decoded again only when its
/// identity changed (inode, size or modification time: `learn` writes it whole through a rename, and removes it
/// when it ends). A claim written a moment before a tap is seen at that tap, which a timer could not promise.
public final class LearnClaimWatch: Sendable {
    /// The claim file's path.
    public let path: String
    private struct Seen: Sendable {
        var identity: [Int]
        var claim: LearnClaim?
    }
    private let seen = Mutex(Seen(identity: [], claim: nil))

    /// Watches the claim file of a rules folder.
    /// - Parameter folder: the rules folder (``LearnClaim/rulesFolder(of:)``).
    public init(folder: String) {
        path = LearnClaim.path(in: folder)
    }

    /// The claim in force now, if any: a missing, unreadable, malformed or expired file is none.
    /// - Parameter now: the time.
    public func current(now: Date = Date()) -> LearnClaim? {
        guard let status = FileStatus.of(path) else {
            seen.withLock { $0 = Seen(identity: [], claim: nil) }
            return nil
        }
        let identity = [
            Int(truncatingIfNeeded: status.device), Int(truncatingIfNeeded: status.inode), Int(status.size),
            status.modified.seconds, status.modified.nanoseconds,
        ]
        let claim = seen.withLock { seen -> LearnClaim? in
            if seen.identity != identity {
                seen = Seen(identity: identity, claim: LearnClaim.read(path))
            }
            return seen.claim
        }
        guard let claim, claim.until > now else { return nil }
        return claim
    }
}
