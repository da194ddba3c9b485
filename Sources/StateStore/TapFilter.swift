public import Foundation
import GRDB

/// Which taps `tagrouter history` lists or exports (docs/cli.md, "tagrouter history"): every condition given must
/// hold; none given, every tap.
public struct TapFilter: Sendable, Hashable {
    /// Taps at or after this instant.
    public var since: Date?
    /// Taps before this instant.
    public var until: Date?
    /// Taps on this reader (its name, exactly).
    public var reader: String?
    /// Taps this rule decided, matched or refused (a tap that fanned out to several rules names each).
    public var rule: String?
    /// Taps of the tag with this UID (uppercase hex without separators).
    public var uid: String?
    /// Taps of the tag enrolled under this name.
    public var tagName: String?
    /// Taps with one of these outcomes; empty: any outcome.
    public var outcomes: Set<TapRecord.Outcome> = []
    /// Refusals for this reason (`disabled`, `expired`, …; docs/doors.md, "Refusals").
    public var reason: String?

    /// A filter that keeps every tap.
    public init() {}

    /// Whether a condition other than the time range is set (the history then lists taps only, no deliveries).
    public var selectsTaps: Bool {
        reader != nil || rule != nil || uid != nil || tagName != nil || !outcomes.isEmpty || reason != nil
    }

    /// This filter narrowed to `history --denied` (refusals) or `--failed` (failed or dropped taps).
    /// - Parameters:
    ///   - failedOnly: keep failed and dropped taps only.
    ///   - deniedOnly: keep refusals only (it wins over `failedOnly`).
    /// - Returns: the narrowed filter; nil when it can keep no tap (`--denied --outcome matched`).
    public func narrowed(failedOnly: Bool, deniedOnly: Bool) -> TapFilter? {
        guard deniedOnly || failedOnly else { return self }
        let kept: Set<TapRecord.Outcome> = deniedOnly ? [.denied] : Set(TapRecord.Outcome.allCases.filter(\.isFailure))
        var narrowed = self
        narrowed.outcomes = outcomes.isEmpty ? kept : outcomes.intersection(kept)
        return narrowed.outcomes.isEmpty ? nil : narrowed
    }

    /// The `WHERE` clause (empty when the filter keeps every tap) and its arguments. The outcomes are written as
    /// literals (they are a closed set): `outcome = 'denied'` lets SQLite walk the `taps_denied` index.
    func whereClause() -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let since {
            conditions.append("time >= ?")
            arguments += [Timestamp.milliseconds(since)]
        }
        if let until {
            conditions.append("time < ?")
            arguments += [Timestamp.milliseconds(until)]
        }
        if let reader {
            conditions.append("reader = ?")
            arguments += [reader]
        }
        if let rule {
            // `rule` holds the rules of a fan-out joined by commas; rule names never contain one.
            conditions.append("instr(',' || rule || ',', ',' || ? || ',') > 0")
            arguments += [rule]
        }
        switch (uid, tagName) {
        case (let uid?, let name?):
            conditions.append("(uid = ? OR tag_name = ?)")
            arguments += [uid, name]
        case (let uid?, nil):
            conditions.append("uid = ?")
            arguments += [uid]
        case (nil, let name?):
            conditions.append("tag_name = ?")
            arguments += [name]
        case (nil, nil):
            break
        }
        if let reason {
            conditions.append("reason = ?")
            arguments += [reason]
        }
        let outcomes = TapRecord.Outcome.allCases.filter(outcomes.contains).map { "'\($0.rawValue)'" }
        if outcomes.count == 1 {
            conditions.append("outcome = \(outcomes[0])")
        } else if !outcomes.isEmpty {
            conditions.append("outcome IN (\(outcomes.joined(separator: ", ")))")
        }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") + " ", arguments)
    }
}
