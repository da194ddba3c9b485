import Foundation
import GRDB
import StateStore
import Testing

@Suite("The state database")
struct StateDatabaseTests {
    @Test("the database is private (0600) in a 0700 directory, and reopening keeps the rows")
    func permissionsAndReopen() async throws {
        try await TestEnvironment.withTemporaryDirectory { temporary in
            let directory = temporary + "/state/tagrouter"
            let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            _ = try outbox.insert(.webhook("http://h/", eventID: "e1"))
            let file = try FileManager.default.attributesOfItem(atPath: directory + "/tagrouter.sqlite")
            let folder = try FileManager.default.attributesOfItem(atPath: directory)
            #expect((file[.posixPermissions] as? Int) == 0o600)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: outbox.path + suffix) {
                let attributes = try FileManager.default.attributesOfItem(atPath: outbox.path + suffix)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
            }
            let reopened = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            #expect(try reopened.deliveries(eventID: "e1").map(\.state) == [.pending])
        }
    }

    @Test("an unusable state directory is a clear error naming the path")
    func unusableDirectory() async throws {
        try await TestEnvironment.withTemporaryDirectory { temporary in
            let blocker = temporary + "/file"
            _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
            #expect {
                try StateDatabase(directory: blocker + "/state", logger: TestEnvironment.logger)
            } throws: { error in
                (error as? StateStoreError)?.description.contains(blocker + "/state") == true
            }
        }
    }

    @Test("taps are recorded and listed newest first; --failed keeps failures only")
    func tapsAndHistory() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let outbox = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            try outbox.recordTap(
                TapRecord(time: base, reader: "R1", uid: "04A1", uri: "https://x/", rule: "door", outcome: .matched)
            )
            try outbox.recordTap(TapRecord(time: base + 1, reader: "R2\nfake line", outcome: .ignored))
            try outbox.recordTap(
                TapRecord(time: base + 2, reader: "R1", rule: "door", outcome: .failed, detail: "exit 3")
            )
            let all = try outbox.history()
            #expect(all.taps.map(\.outcome) == [.failed, .ignored, .matched])
            #expect(try outbox.history(failedOnly: true).taps.map(\.outcome) == [.failed])
            #expect(try outbox.history(limit: 1).taps.count == 1)
            let text = all.text()
            #expect(text.contains("2023-11-14T22:13:21.000Z  ignored     reader=R2\\nfake line  uid=-  rule=-  uri=-"))
            #expect(text.contains("reader=R1  uid=04A1  rule=door  uri=https://x/"))
            #expect(text.hasSuffix("Webhook deliveries:\n  (none)\n"))
            let json = try JSONSerialization.jsonObject(with: Data(all.json().utf8)) as? [String: Any]
            let taps = json?["taps"] as? [[String: Any]]
            #expect(taps?.count == 3)
            #expect(taps?.first?["time"] as? String == "2023-11-14T22:13:22.000Z")
            #expect(taps?.first?["detail"] as? String == "exit 3")
        }
    }

    @Test("refusals are listed by --denied, with the rule, the reason and the enrolled name escaped")
    func deniedHistory() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            var refused = TapRecord(time: base, reader: "Door", uid: "04A1", rule: "front-door", outcome: .denied)
            refused.tagName = "evil\n\u{1B}[2J \"name\""
            refused.reason = "outside-window"
            try database.recordTap(refused)
            var long = refused
            long.time = base + 1
            long.tagName = String(repeating: "x", count: 10_000)
            long.reason = "expired"
            try database.recordTap(long)
            try database.recordTap(
                TapRecord(time: base + 2, reader: "Door", uid: "04B2", rule: "door", outcome: .matched))
            let denied = try database.history(deniedOnly: true)
            #expect(denied.taps.map(\.reason) == ["expired", "outside-window"])
            #expect(denied.taps.last?.tagName == "evil\n\u{1B}[2J \"name\"")
            let text = denied.text()
            #expect(
                text.contains(#"rule=front-door  uri=-  tag="evil\n\u{1B}[2J \"name\""  reason=outside-window"#),
                "\(text)")
            #expect(text.contains(#"tag="\#(String(repeating: "x", count: 300))…"  reason=expired"#))
            #expect(!text.contains("\u{1B}"))
            let json = try JSONSerialization.jsonObject(with: Data(denied.json().utf8)) as? [String: Any]
            let taps = json?["taps"] as? [[String: Any]]
            #expect(taps?.compactMap { $0["outcome"] as? String } == ["denied", "denied"])
            #expect(taps?.last?["tagName"] as? String == "evil\n\u{1B}[2J \"name\"")
        }
    }

    @Test("the default state directory follows root / XDG_STATE_HOME / HOME")
    func defaultStateDirectory() {
        #expect(StateDirectory.defaultPath(environment: ["XDG_STATE_HOME": "/x"], isRoot: true) == "/var/lib/tagrouter")
        #expect(
            StateDirectory.defaultPath(environment: ["XDG_STATE_HOME": "/x/state"], isRoot: false)
                == "/x/state/tagrouter")
        #expect(
            StateDirectory.defaultPath(environment: ["XDG_STATE_HOME": "rel", "HOME": "/home/u"], isRoot: false)
                == "/home/u/.local/state/tagrouter")
        #expect(StateDirectory.databasePath(in: "/s/") == "/s/tagrouter.sqlite")
    }

    @Test("a finished delivery keeps neither its signing secret nor its headers; a pending one keeps both")
    func finishedDeliveriesKeepNoSecrets() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            var ids: [Int64] = []
            for eventID in ["delivered", "failed", "retried"] {
                var delivery = Delivery.webhook("http://h/", eventID: eventID)
                delivery.secret = "s3cret"
                delivery.headers = [Delivery.Header("Authorization", "Bearer token")]
                ids.append(try database.insert(delivery).id)
            }
            try database.record([
                DeliveryOutcome(id: ids[0], state: .delivered, status: 200, nextAttemptAt: 1, finishedAt: 1),
                DeliveryOutcome(id: ids[1], state: .failed, status: 400, nextAttemptAt: 1, finishedAt: 1),
                DeliveryOutcome(id: ids[2], state: .pending, status: 503, nextAttemptAt: 1),
            ])
            for eventID in ["delivered", "failed"] {
                let finished = try #require(try database.deliveries(eventID: eventID).first)
                #expect(finished.secret == nil)
                #expect(finished.headers.isEmpty)
            }
            let pending = try #require(try database.deliveries(eventID: "retried").first)
            #expect(pending.secret == "s3cret")
            #expect(pending.headers == [Delivery.Header("Authorization", "Bearer token")])
        }
    }

    /// A row this release cannot read back is an error naming the row and the column, never a guessed value.
    @Test(
        "an undecodable delivery row is an error naming its id and column",
        arguments: [
            ("kind = 'fax'", "column 'kind' holds 'fax', not webhook or mqtt"),
            ("state = 'lost'", "column 'state' holds 'lost', not pending, delivered or failed"),
            ("headers = '{not json'", "column 'headers' is not valid JSON"),
            ("transport = '[1]'", "column 'transport' is not valid JSON"),
            ("attempts = 'many'", "column 'attempts' cannot be read as Int"),
        ])
    func undecodableDeliveryRow(change: String, expected: String) async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            let id = try database.insert(Delivery.webhook("http://h/", eventID: "e")).id
            #expect(try database.deliveries(eventID: "e").count == 1)
            let queue = try DatabaseQueue(path: StateDirectory.databasePath(in: directory))
            try queue.write { db in
                try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
                try db.execute(sql: "UPDATE deliveries SET \(change) WHERE id = ?", arguments: [id])
            }
            try queue.close()
            let error = try #require(throws: StateStoreError.self) { try database.deliveries(eventID: "e") }
            #expect(error.message.contains("deliveries row \(id): \(expected)"), "\(error)")
        }
    }

    @Test("a state directory wider than 0700 is made private when the database is opened; a new one is created 0700")
    func stateDirectoryIsTightened() async throws {
        try await TestEnvironment.withTemporaryDirectory { temporary in
            let wide = temporary + "/wide"
            try FileManager.default.createDirectory(
                atPath: wide, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            _ = try StateDatabase(directory: wide, logger: TestEnvironment.logger)
            #expect((try FileManager.default.attributesOfItem(atPath: wide)[.posixPermissions] as? Int) == 0o700)
            try StateDirectory.create(temporary + "/new/state")
            for path in [temporary + "/new", temporary + "/new/state"] {
                #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o700)
            }
        }
    }
    @Test("a file of garbage bytes is moved aside with its -wal and -shm, and a fresh database starts")
    func garbageIsMovedAside() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let path = StateDirectory.databasePath(in: directory)
            let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            for suffix in ["", "-wal", "-shm"] {
                _ = FileManager.default.createFile(atPath: path + suffix, contents: garbage)
            }
            // A command (not the router) says what is wrong and where to read how to recover, and moves nothing.
            #expect {
                try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            } throws: { error in
                let message = (error as? StateStoreError)?.description ?? ""
                return message.contains("\(path) is corrupt") && message.contains("A corrupt state database")
            }
            #expect(StateDirectory.corruptDatabases(in: directory).isEmpty)

            let database = try StateDatabase(
                directory: directory, movesCorruptFileAside: true, logger: TestEnvironment.logger)
            let movedAside = try #require(database.movedAside)
            #expect(StateDirectory.corruptDatabases(in: directory) == [movedAside])
            let name = (movedAside as NSString).lastPathComponent
            #expect(name.hasPrefix("tagrouter.sqlite.corrupt-"))
            let stamp = name.dropFirst("tagrouter.sqlite.corrupt-".count)
            #expect(stamp.count == 16 && stamp.hasSuffix("Z") && stamp.dropFirst(8).first == "T", "\(name)")
            // The file and its -wal as they were (the -shm, an index SQLite rebuilds from the -wal, may be rewritten).
            for suffix in ["", "-wal"] {
                #expect(FileManager.default.contents(atPath: movedAside + suffix) == garbage, "\(suffix)")
            }
            #expect(FileManager.default.fileExists(atPath: movedAside + "-shm"))
            #expect(try database.history().taps.isEmpty)
            _ = try database.insert(.webhook("http://h/", eventID: "after"))
            #expect(try database.deliveries(eventID: "after").map(\.state) == [.pending])
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
            // The fresh database is healthy: the next start keeps it.
            #expect(
                try StateDatabase(directory: directory, movesCorruptFileAside: true, logger: TestEnvironment.logger)
                    .movedAside == nil)
        }
    }

    @Test("a truncated real database is found corrupt and moved aside; a second one gets a name of its own")
    func truncatedDatabaseIsMovedAside() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let path = StateDirectory.databasePath(in: directory)
            do {
                let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
                for index in 0..<400 {
                    _ = try database.insert(.webhook("http://h/\(index)", eventID: "e\(index)"))
                    try database.recordTap(
                        TapRecord(
                            time: Date(), reader: "R", outcome: .matched,
                            detail: String(repeating: "d", count: 200)))
                }
            }
            // The last connection closed: the WAL is checkpointed into the file and removed.
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(size > 100_000)
            #expect(truncate(path, off_t(size / 2)) == 0)
            let first: String
            do {
                let database = try StateDatabase(
                    directory: directory, movesCorruptFileAside: true, logger: TestEnvironment.logger)
                first = try #require(database.movedAside)
                #expect((try FileManager.default.attributesOfItem(atPath: first)[.size] as? Int) == size / 2)
                #expect(try database.deliveries(eventID: "e1").isEmpty)
            }
            // Corrupt again: the second file moved aside does not replace the first (in the same second, its name
            // ends in -2).
            let copy = try #require(FileManager.default.contents(atPath: first))
            try FileManager.default.removeItem(atPath: path)
            _ = FileManager.default.createFile(atPath: path, contents: copy)
            let again = try StateDatabase(
                directory: directory, movesCorruptFileAside: true, logger: TestEnvironment.logger)
            let second = try #require(again.movedAside)
            #expect(second != first)
            #expect(Set(StateDirectory.corruptDatabases(in: directory)) == [first, second])
        }
    }
}
