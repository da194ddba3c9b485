public import Foundation
public import Logging
import PeriodicWork
public import ServiceLifecycle
public import StateStore
public import TagRules

/// Prunes the tap history to its retention (docs/operations.md, "Retention of the history"), off the tap path: at
/// start and then every ``interval``, in batches of ``batchSize`` taps, each its own short write transaction with
/// a pause after it, so a tap being recorded waits for one batch at the most. The retention is read from the
/// rules in force at each run (their `history:` block, or ``StateStore/HistoryRetention/default``), so a reload
/// changes it.
public struct HistoryPruner: Service, CustomStringConvertible {
    let database: StateDatabase
    let retention: @Sendable () -> HistoryRetention
    let now: @Sendable () -> Date
    /// The time between two runs.
    public let interval: Duration
    /// The most taps one batch deletes.
    public let batchSize: Int
    /// The pause after each batch that deleted something.
    public let pause: Duration
    let logger: Logger

    /// Creates the pruner.
    /// - Parameters:
    ///   - database: the state database.
    ///   - retention: the retention in force, read at each run.
    ///   - now: the clock ages are measured with.
    ///   - interval: the time between two runs; 10 minutes by default.
    ///   - batchSize: the most taps one batch deletes; 500 by default.
    ///   - pause: the pause after a batch; 20 ms by default.
    ///   - logger: where each run's deletions and failures are logged.
    public init(
        database: StateDatabase, retention: @escaping @Sendable () -> HistoryRetention,
        now: @escaping @Sendable () -> Date = { Date() }, interval: Duration = .seconds(600), batchSize: Int = 500,
        pause: Duration = .milliseconds(20), logger: Logger
    ) {
        self.database = database
        self.retention = retention
        self.now = now
        self.interval = interval
        self.batchSize = batchSize
        self.pause = pause
        self.logger = logger
    }

    /// The retention the rules ask for: their `history:` block, each key left out at its default.
    /// - Parameter settings: the rule set's `history:` block, if any.
    /// - Returns: the retention.
    public static func retention(_ settings: HistorySettings?) -> HistoryRetention {
        var retention = HistoryRetention.default
        if let keep = settings?.keep { retention.maxAge = keep }
        if let maxSize = settings?.maxSize { retention.maxBytes = maxSize }
        return retention
    }

    /// Prunes until graceful shutdown or cancellation.
    public func run() async {
        await Periodic.every(interval) { _ = await pruneNow() }
    }

    /// One run: batches until one deletes nothing, graceful shutdown comes, or the database fails (logged; the
    /// next run tries again).
    /// - Returns: what was deleted in all.
    @discardableResult
    public func pruneNow() async -> StateDatabase.PruneBatch {
        var total = StateDatabase.PruneBatch(expired: 0, overSize: 0)
        let retention = retention()
        while true {
            do {
                let batch = try database.pruneTaps(retention, now: now(), batchSize: batchSize)
                total.expired += batch.expired
                total.overSize += batch.overSize
                if batch.deleted == 0 { break }
            } catch {
                logger.warning("history.prune_failed", metadata: ["error": "\(error)"])
                break
            }
            guard await Periodic.pause(for: pause) else { break }
        }
        if total.deleted > 0 {
            logger.info(
                "history.pruned",
                metadata: ["history.expired": "\(total.expired)", "history.over_size": "\(total.overSize)"])
        }
        return total
    }

    /// The service's name in lifecycle logs.
    public var description: String { "HistoryPruner" }
}
