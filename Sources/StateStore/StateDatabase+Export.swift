import Foundation
import GRDB

extension StateDatabase {
    /// The order taps are read in.
    public enum TapOrder: Sendable {
        /// Newest first (`history`'s lists).
        case newestFirst
        /// Oldest first (`history`'s exports).
        case oldestFirst
    }

    /// Reads the taps `filter` keeps, one at a time through an SQLite cursor, in one read transaction (a
    /// consistent snapshot while the router goes on writing): memory stays constant whatever their number.
    /// - Parameters:
    ///   - filter: which taps.
    ///   - order: newest or oldest first (both walk the `taps_time` index).
    ///   - limit: at most this many; nil for all.
    ///   - body: called with each tap; what it throws ends the reading and is rethrown.
    /// - Throws: ``StateStoreError`` when the database cannot be read; what `body` throws.
    public func forEachTap(
        matching filter: TapFilter, order: TapOrder, limit: Int? = nil, _ body: (TapRecord) throws -> Void
    ) throws {
        let (condition, arguments) = filter.whereClause()
        let direction = order == .newestFirst ? "DESC" : "ASC"
        let sql =
            "SELECT time, reader, uid, uri, rule, outcome, detail, event_id, event, presentation_id, tag_name, reason "
            + "FROM taps \(condition)ORDER BY time \(direction), id \(direction) LIMIT \(limit.map { max(0, $0) } ?? -1)"
        var failure: (any Error)?
        do {
            try pool.read { db in
                let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try rows.next() {
                    do {
                        try body(Self.exportedTap(row))
                    } catch {
                        failure = error
                        return
                    }
                }
            }
        } catch {
            throw StateStoreError("state database \(path): cannot read history: \(error)")
        }
        if let failure { throw failure }
    }

    /// Writes the taps `filter` keeps in `format`, oldest first, through `write` in chunks of about 64 KiB (a CSV
    /// starts with its header row): the export of `tagrouter history --format jsonl|csv`, in constant memory.
    /// - Parameters:
    ///   - filter: which taps.
    ///   - format: JSON lines or CSV.
    ///   - limit: at most this many; nil for all.
    ///   - write: takes each chunk of text (standard output for the command line).
    /// - Returns: how many taps were written.
    /// - Throws: ``StateStoreError``; what `write` throws.
    @discardableResult
    public func exportTaps(
        matching filter: TapFilter, format: TapExportFormat, limit: Int? = nil, to write: (String) throws -> Void
    ) throws -> Int {
        let chunk = 64 * 1024
        var buffer = ""
        buffer.reserveCapacity(chunk + 4096)
        if format == .csv { buffer += TapExportFormat.csvHeader + "\r\n" }
        var count = 0
        try forEachTap(matching: filter, order: .oldestFirst, limit: limit) { tap in
            format.append(tap, to: &buffer)
            count += 1
            if buffer.utf8.count >= chunk {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty { try write(buffer) }
        return count
    }

    /// One page of the taps `filter` keeps, from a cursor on: the console's door log and its exports read the
    /// history page by page along the `taps_time` index, so a page costs the same on the first row as on the
    /// millionth (docs/console.md, "Door log").
    /// - Parameters:
    ///   - filter: which taps.
    ///   - order: newest or oldest first.
    ///   - cursor: where the previous page ended (the taps after it in `order`); nil: from the start.
    ///   - limit: at most this many taps.
    /// - Returns: the taps, and the cursor of the next page (nil when this one was the last).
    /// - Throws: ``StateStoreError``.
    public func taps(matching filter: TapFilter, order: TapOrder, from cursor: TapCursor?, limit: Int) throws
        -> (taps: [TapRecord], next: TapCursor?)
    {
        var (condition, arguments) = filter.whereClause()
        let direction = order == .newestFirst ? "DESC" : "ASC"
        if let cursor {
            let comparison = "(time, id) \(order == .newestFirst ? "<" : ">") (?, ?) "
            condition = condition.isEmpty ? "WHERE " + comparison : condition + "AND " + comparison
            arguments += [cursor.time, cursor.id]
        }
        let limit = max(1, limit)
        let sql =
            "SELECT time, reader, uid, uri, rule, outcome, detail, event_id, event, presentation_id, tag_name, reason, "
            + "id FROM taps \(condition)ORDER BY time \(direction), id \(direction) LIMIT \(limit + 1)"
        let bound = arguments
        let rows = try read("read history") { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map { row in
                (Self.exportedTap(row), TapCursor(time: row[0], id: row[12]))
            }
        }
        let page = rows.prefix(limit)
        return (page.map(\.0), rows.count > limit ? page.last?.1 : nil)
    }

    /// A tap from the columns ``forEachTap(matching:order:limit:_:)`` selects, by position.
    private static func exportedTap(_ row: Row) -> TapRecord {
        let time: Int64 = row[0]
        var record = TapRecord(
            time: Date(timeIntervalSince1970: Double(time) / 1000), reader: row[1], uid: row[2], uri: row[3],
            rule: row[4], outcome: TapRecord.Outcome(rawValue: row[5]) ?? .failed, detail: row[6], eventID: row[7])
        record.event = row[8]
        record.presentationID = row[9]
        record.tagName = row[10]
        record.reason = row[11]
        return record
    }
}
