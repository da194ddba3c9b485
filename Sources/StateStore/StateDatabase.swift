import Foundation
import GRDB
public import Logging
import Synchronization

/// The state database (`<state dir>/tagrouter.sqlite`, SQLite in WAL mode): the durable outbox of webhooks and
/// QoS 1 MQTT publications, the tap history and the association-file cache. It is the one store of record.
///
/// Every delivery is inserted here before any of its request is sent, so neither a crash nor a restart loses
/// one. The rows hold what a retry needs to sign and send the request unchanged, including the rule's secret and
/// headers (which may carry tokens): the directory is created mode 0700 and the database file 0600.
public final class StateDatabase: Sendable {
    /// The default number of finished deliveries kept for `tagrouter history` (taps are kept by
    /// ``HistoryRetention``).
    public static let defaultRetention = 10_000

    /// The state directory.
    public let directory: String
    /// The database file.
    public let path: String
    /// How many finished deliveries are kept.
    public let retention: Int
    let pool: DatabasePool
    /// The most connections that read at once (the outbox's due rows, the gauge, the association cache, a
    /// history listing): with the writer, five connections of 256 KiB of page cache each at the most.
    static let maximumReaderCount = 4
    let logger: Logger
    /// Finished rows written since the last prune: old rows are pruned every 256.
    let writesSincePrune = Atomic<Int>(0)

    /// The file the corrupt database was moved to when this open found it corrupt and started a fresh one
    /// (`tagrouter.sqlite.corrupt-<UTC time>`, with its `-wal` and `-shm`); nil when the database opened as it was.
    public let movedAside: String?

    /// Opens (creating and migrating if needed) the state database in `directory`.
    /// - Parameters:
    ///   - directory: the state directory; created (0700) if missing, made 0700 if wider.
    ///   - retention: how many finished deliveries to keep.
    ///   - busyTimeout: how long a write waits for another process's write (`tagrouter history` only reads).
    ///   - movesCorruptFileAside: when the file is corrupt (SQLite's `SQLITE_CORRUPT` or `SQLITE_NOTADB` on opening
    ///     or migrating, or a `PRAGMA quick_check` that finds a problem), move it aside with its `-wal` and `-shm`
    ///     (``movedAside``), log that at error level and start a fresh database. Only the router asks for this:
    ///     it is the one process that writes, and a command run beside it must not move its database away.
    ///     Without it, a corrupt file is an error saying so.
    ///   - logger: where database maintenance is logged.
    /// - Throws: ``StateStoreError`` naming the path and the cause.
    public init(
        directory: String,
        retention: Int = StateDatabase.defaultRetention,
        busyTimeout: Duration = .seconds(10),
        movesCorruptFileAside: Bool = false,
        logger: Logger
    ) throws {
        let path = StateDirectory.databasePath(in: directory)
        self.directory = directory
        self.path = path
        self.retention = max(1, retention)
        self.logger = logger
        var configuration = Configuration()
        let (seconds, attoseconds) = busyTimeout.components
        configuration.busyMode = .timeout(Double(seconds) + Double(attoseconds) / 1e18)
        // Every cache bounded by construction (docs/performance.md, "Memory over many taps"): at most this many
        // reading connections beside the one writer, each with the page cache below.
        configuration.maximumReaderCount = Self.maximumReaderCount
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Each connection's page cache stays at 256 KiB (SQLite's default is 2 MiB per connection, and every
            // tap writes new pages): the router's memory stays flat (docs/performance.md, "Memory over many
            // taps").
            try db.execute(sql: "PRAGMA cache_size = -256")
        }
        do {
            try StateDirectory.create(directory)
            do {
                pool = try Self.openPool(path: path, configuration: configuration, checks: movesCorruptFileAside)
                movedAside = nil
            } catch let error where movesCorruptFileAside && Self.isCorruption(error) {
                let target = try Self.moveAside(path)
                logger.error(
                    "state_database.recovered: the corrupt database was moved aside and a fresh one started",
                    metadata: ["state_database.moved_aside": "\(target)", "error": "\(error)"])
                pool = try Self.openPool(path: path, configuration: configuration, checks: false)
                movedAside = target
            }
        } catch let error as StateStoreError {
            throw error
        } catch let error where Self.isCorruption(error) {
            throw StateStoreError(
                "state database \(path) is corrupt (\(error)): the router moves it aside and starts a fresh one when "
                    + "it starts (docs/operations.md, \"A corrupt state database\")")
        } catch {
            throw StateStoreError("state database \(path): \(error)")
        }
    }

    /// Opens the pool on `path` (creating the file 0600 first) and migrates it. The file is read first through a
    /// read-only connection, which never checkpoints nor deletes a `-wal` (the pool's last connection does as it
    /// closes): a corrupt file is found before anything changes its `-wal`, which then goes aside with it. That
    /// read is a `PRAGMA quick_check` with `checks`, else the schema. The pool is closed again when this throws.
    private static func openPool(path: String, configuration: Configuration, checks: Bool) throws -> DatabasePool {
        // Create the file 0600 before SQLite does, so it (and its -wal/-shm, which copy its mode) is private.
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateStoreError("state database \(path): cannot create: \(String(cString: strerror(errno)))")
        }
        fchmod(descriptor, 0o600)
        close(descriptor)
        try check(path: path, configuration: configuration, quick: checks)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try migrator.migrate(pool)
        return pool
    }

    /// Whether a state database exists in `directory` (`tagrouter history` reads without creating one).
    /// - Parameter directory: the state directory.
    /// - Returns: whether `tagrouter.sqlite` exists there.
    public static func exists(in directory: String) -> Bool {
        FileManager.default.fileExists(atPath: StateDirectory.databasePath(in: directory))
    }

    /// The schema, one migration per version.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE deliveries (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        event_id TEXT NOT NULL,
                        rule TEXT NOT NULL,
                        url TEXT NOT NULL,
                        method TEXT NOT NULL,
                        headers TEXT NOT NULL,
                        content_type TEXT NOT NULL,
                        body BLOB NOT NULL,
                        secret TEXT,
                        timeout_ms INTEGER NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_status INTEGER,
                        last_error TEXT,
                        created_at INTEGER NOT NULL,
                        next_attempt_at INTEGER NOT NULL,
                        deadline INTEGER NOT NULL,
                        finished_at INTEGER
                    );
                    CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE state = 'pending';
                    CREATE INDEX deliveries_finished ON deliveries (finished_at, id) WHERE state <> 'pending';
                    CREATE TABLE taps (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        time INTEGER NOT NULL,
                        reader TEXT NOT NULL,
                        uid TEXT,
                        uri TEXT,
                        rule TEXT,
                        outcome TEXT NOT NULL,
                        detail TEXT,
                        event_id TEXT
                    );
                    CREATE INDEX taps_time ON taps (time, id);
                    """
            )
        }
        migrator.registerMigration("aasa-cache") { db in
            try db.execute(sql: StateDatabase.associationCacheSchema)
        }
        migrator.registerMigration("mqtt-outbox") { db in
            // The deliveries table learns a kind (`webhook`, `mqtt`) and the MQTT fields. An MQTT row keeps its
            // topic in `url`, `MQTT` in `method` and its payload in `body`.
            try db.execute(
                sql: """
                    ALTER TABLE deliveries ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook';
                    ALTER TABLE deliveries ADD COLUMN qos INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE deliveries ADD COLUMN retain INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX deliveries_mqtt_pending ON deliveries (id) WHERE state = 'pending' AND kind = 'mqtt';
                    """
            )
        }
        migrator.registerMigration("webhook-transport") { db in
            // A webhook's trust anchors, client certificate and proxy (JSON), when its rule sets them.
            try db.execute(sql: "ALTER TABLE deliveries ADD COLUMN transport TEXT")
        }
        migrator.registerMigration("presentation-events") { db in
            // The events of a presentation followed by a rule's `on:` block, linked by the presentation's id.
            try db.execute(sql: "ALTER TABLE taps ADD COLUMN event TEXT")
            try db.execute(sql: "ALTER TABLE taps ADD COLUMN presentation_id TEXT")
        }
        migrator.registerMigration("doors") { db in
            // The enrolled name of the tag, and why a door rule refused it (docs/doors.md, "Refusals").
            try db.execute(sql: "ALTER TABLE taps ADD COLUMN tag_name TEXT")
            try db.execute(sql: "ALTER TABLE taps ADD COLUMN reason TEXT")
        }
        migrator.registerMigration("sun-counters") { db in
            // The highest SUN read counter accepted per key set and UID: an older or equal one is a replay.
            try db.execute(
                sql: """
                    CREATE TABLE sun_counters (
                        key_set TEXT NOT NULL, uid TEXT NOT NULL, counter INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                        PRIMARY KEY (key_set, uid)
                    )
                    """)
        }
        migrator.registerMigration("history-retention") { db in
            // `history --denied` walks the refusals alone, newest first, however long the history kept
            // (docs/operations.md, "Retention of the history"); pruning and time ranges use `taps_time`.
            try db.execute(sql: "CREATE INDEX taps_denied ON taps (time, id) WHERE outcome = 'denied'")
        }
        migrator.registerMigration("console-logins") { db in
            // The one-time links of `tagrouter console-login`: only each token's SHA-256 is kept, until it is used or
            // expires (docs/console.md, "Signing in").
            try db.execute(
                sql: "CREATE TABLE console_logins (token_hash TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)")
        }
        return migrator
    }

    /// Runs a write, in a transaction unless it is one statement, turning database errors into ``StateStoreError``.
    /// - Parameters:
    ///   - what: what the write does, for the error message.
    ///   - isOneStatement: the body runs a single statement, which SQLite's autocommit makes atomic on its own: no
    ///     `BEGIN` and `COMMIT` are compiled and run around it (on a tap's path, about 0.1 ms on the development VM:
    ///     docs/performance.md).
    ///   - body: the writes.
    func write<T: Sendable>(
        _ what: String, isOneStatement: Bool = false, _ body: @Sendable (Database) throws -> T
    ) throws -> T {
        do {
            return try isOneStatement ? pool.writeWithoutTransaction(body) : pool.write(body)
        } catch {
            throw StateStoreError("state database \(path): cannot \(what): \(error)")
        }
    }

    /// Runs a read, turning database errors into ``StateStoreError``.
    func read<T: Sendable>(_ what: String, _ body: @Sendable (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw StateStoreError("state database \(path): cannot \(what): \(error)")
        }
    }

    /// Whether `count` more finished rows make a prune due (every 256).
    func pruneDue(after count: Int) -> Bool {
        guard count > 0, writesSincePrune.add(count, ordering: .relaxed).newValue >= 256 else { return false }
        writesSincePrune.store(0, ordering: .relaxed)
        return true
    }
}
