import Foundation
import GRDB

/// A corrupt state database: found, moved aside, listed (docs/operations.md, "A corrupt state database").
extension StateDatabase {
    /// What `PRAGMA quick_check` found wrong with the database (its first lines).
    struct QuickCheckFailure: Error, CustomStringConvertible {
        /// The check's lines, `ok` aside.
        var problems: [String]

        var description: String { "quick_check: " + problems.prefix(3).joined(separator: "; ") }
    }

    /// Whether an error from opening, checking or migrating says the file is corrupt or not a database: SQLite's
    /// `SQLITE_CORRUPT` or `SQLITE_NOTADB`, or a quick check that found a problem. A full disk, a permission or a
    /// lock is not.
    /// - Parameter error: the error.
    static func isCorruption(_ error: any Error) -> Bool {
        if error is QuickCheckFailure { return true }
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// Reads the file through a read-only connection: `PRAGMA quick_check` (the structure of every page, not the
    /// index contents: linear in the file's size) when `quick`, else the schema (which finds a file that is not a
    /// database, or whose first page is damaged). A read-only connection leaves the `-wal` as it is.
    /// - Throws: ``QuickCheckFailure`` when the quick check finds a problem, or the database's error.
    static func check(path: String, configuration: Configuration, quick: Bool) throws {
        var readOnly = configuration
        readOnly.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: readOnly)
        let lines = try queue.read { db in
            quick
                ? try String.fetchAll(db, sql: "PRAGMA quick_check")
                : [try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") != nil ? "ok" : "no schema"]
        }
        if lines != ["ok"] { throw QuickCheckFailure(problems: lines.filter { $0 != "ok" }) }
    }

    /// Moves the database file at `path`, its `-wal` and its `-shm` to `<path>.corrupt-<UTC time>` (and `-wal`,
    /// `-shm` after that name, where `sqlite3` looks for them), then syncs the directory.
    /// - Parameters:
    ///   - path: the database file.
    ///   - now: the time in the new name.
    /// - Returns: the new path of the database file.
    /// - Throws: ``StateStoreError`` when a file cannot be moved.
    static func moveAside(_ path: String, now: Date = Date()) throws -> String {
        let stamp = StateDirectory.corruptSuffix + StateDirectory.compactUTC(now)
        var target = path + stamp
        var number = 1
        while FileManager.default.fileExists(atPath: target) {
            number += 1
            target = path + stamp + "-\(number)"
        }
        guard rename(path, target) == 0 else {
            throw StateStoreError(
                "state database \(path) is corrupt and cannot be moved aside to \(target): "
                    + String(cString: strerror(errno)))
        }
        for suffix in ["-wal", "-shm"] where rename(path + suffix, target + suffix) != 0 && errno != ENOENT {
            // A stale WAL left beside a fresh database could be replayed into it: it must go too.
            throw StateStoreError(
                "state database \(path) is corrupt and its \(suffix) cannot be moved aside to \(target + suffix): "
                    + String(cString: strerror(errno)))
        }
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        return target
    }
}

extension StateDirectory {
    /// What follows `tagrouter.sqlite` in the name of a corrupt database moved aside, before its time.
    static let corruptSuffix = ".corrupt-"

    /// The corrupt databases the router moved aside in a state directory (`tagrouter.sqlite.corrupt-…`, their
    /// `-wal` and `-shm` not listed), oldest first: `tagrouter doctor` shows them until they are deleted.
    /// - Parameter directory: the state directory.
    /// - Returns: their paths; empty when there are none or the directory cannot be read.
    public static func corruptDatabases(in directory: String) -> [String] {
        let prefix = (databasePath(in: directory) as NSString).lastPathComponent + corruptSuffix
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return
            names
            .filter { $0.hasPrefix(prefix) && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            .sorted()
            .map { base + $0 }
    }

    /// A time as `20261129T071500Z` (UTC, to the second).
    static func compactUTC(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
