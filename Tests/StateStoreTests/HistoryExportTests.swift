import Foundation
import StateStore
import Testing

/// `history`'s filters and exports against a real SQLite file: every filter, the order, JSON lines and CSV with
/// hostile tag data (docs/cli.md, "tagrouter history").
@Suite("History filters and exports")
struct HistoryExportTests {
    static let base = Date(timeIntervalSince1970: 1_780_000_000)

    /// Five taps, a minute apart, oldest first.
    static func recorded(_ database: StateDatabase) throws {
        var denied = TapRecord(
            time: base + 60, reader: "Back door", uid: "04A1B2", rule: "door", outcome: .denied, detail: "refused")
        denied.reason = "outside-window"
        denied.tagName = "alice"
        var hostile = TapRecord(
            time: base + 120, reader: "Front door", uid: "0455", uri: "=HYPERLINK(\"http://evil\",\"x\")",
            rule: "door,log", outcome: .matched, detail: "run ok (exit 0); webhook \"queued\", 1\nline")
        hostile.tagName = "@bob\u{1B}[2J"
        for tap in [
            TapRecord(time: base, reader: "Front door", uid: "04A1B2", rule: "door", outcome: .matched),
            denied,
            hostile,
            TapRecord(time: base + 180, reader: "Front door", outcome: .failed, detail: "-tag removed"),
            TapRecord(time: base + 240, reader: "Front door", uid: "0499", rule: "doorbell", outcome: .matched),
        ] {
            try database.recordTap(tap)
        }
    }

    static func withDatabase(_ body: (StateDatabase) throws -> Void) async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let database = try StateDatabase(directory: directory, logger: TestEnvironment.logger)
            try recorded(database)
            try body(database)
        }
    }

    static func times(_ database: StateDatabase, _ filter: TapFilter) throws -> [Int] {
        var minutes: [Int] = []
        try database.forEachTap(matching: filter, order: .oldestFirst) {
            minutes.append(Int($0.time.timeIntervalSince(base)) / 60)
        }
        return minutes
    }

    @Test("each filter keeps the taps it names; together, those all keep")
    func filters() async throws {
        try await Self.withDatabase { database throws in
            var filter = TapFilter()
            #expect(try Self.times(database, filter) == [0, 1, 2, 3, 4])
            filter.since = Self.base + 60
            filter.until = Self.base + 180
            #expect(try Self.times(database, filter) == [1, 2])
            filter = TapFilter()
            filter.reader = "Back door"
            #expect(try Self.times(database, filter) == [1])
            filter = TapFilter()
            filter.rule = "door"
            #expect(try Self.times(database, filter) == [0, 1, 2])
            filter.rule = "log"
            #expect(try Self.times(database, filter) == [2])
            filter.rule = "door%"
            #expect(try Self.times(database, filter) == [])
            filter = TapFilter()
            filter.uid = "04A1B2"
            #expect(try Self.times(database, filter) == [0, 1])
            filter.uid = nil
            filter.tagName = "alice"
            #expect(try Self.times(database, filter) == [1])
            filter.uid = "0499"
            #expect(try Self.times(database, filter) == [1, 4])
            filter = TapFilter()
            filter.outcomes = [.denied, .failed]
            #expect(try Self.times(database, filter) == [1, 3])
            filter.reader = "Front door"
            filter.since = Self.base + 1
            #expect(try Self.times(database, filter) == [3])
        }
    }

    @Test("--denied and --failed narrow the outcomes; one that contradicts them keeps nothing")
    func narrowing() {
        var filter = TapFilter()
        #expect(filter.narrowed(failedOnly: false, deniedOnly: true)?.outcomes == [.denied])
        #expect(filter.narrowed(failedOnly: true, deniedOnly: false)?.outcomes == [.failed, .dropped])
        filter.outcomes = [.matched]
        #expect(filter.narrowed(failedOnly: false, deniedOnly: true) == nil)
        #expect(filter.narrowed(failedOnly: false, deniedOnly: false)?.outcomes == [.matched])
    }

    @Test("the list is newest first and limited; a tap filter lists no deliveries")
    func listing() async throws {
        try await Self.withDatabase { database throws in
            _ = try database.insert(.webhook("http://h/", eventID: "e1"))
            var filter = TapFilter()
            filter.since = Self.base + 60
            let report = try database.history(filter: filter, limit: 2)
            #expect(report.taps.map(\.reader) == ["Front door", "Front door"])
            #expect(report.taps.map(\.outcome) == [.matched, .failed])
            // The delivery was created now, after the range's start.
            #expect(report.deliveries.count == 1)
            filter.reader = "Back door"
            #expect(try database.history(filter: filter).deliveries.isEmpty)
            #expect(try database.history(deniedOnly: true).taps.map(\.tagName) == ["alice"])
        }
    }

    @Test("JSON lines: one object per tap, keys sorted, hostile text escaped, oldest first")
    func jsonLines() async throws {
        try await Self.withDatabase { database throws in
            var text = ""
            let count = try database.exportTaps(matching: TapFilter(), format: .jsonl) { text += $0 }
            #expect(count == 5)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 6 && lines.last == "")
            #expect(
                lines[1]
                    == #"{"detail":"refused","outcome":"denied","reader":"Back door","reason":"outside-window","rule":"door","tagName":"alice","time":"2026-05-28T20:27:40.000Z","uid":"04A1B2"}"#
            )
            #expect(
                lines[2]
                    == #"{"detail":"run ok (exit 0); webhook \"queued\", 1\u000aline","outcome":"matched","reader":"Front door","rule":"door,log","tagName":"@bob\u001b[2J","time":"2026-05-28T20:28:40.000Z","uid":"0455","uri":"=HYPERLINK(\"http://evil\",\"x\")"}"#
            )
            for line in lines.dropLast() {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["reader"] is String)
            }
            let hostile = try JSONSerialization.jsonObject(with: Data(lines[2].utf8)) as? [String: Any]
            #expect(hostile?["tagName"] as? String == "@bob\u{1B}[2J")
        }
    }

    @Test("CSV: a header row, RFC 4180 quoting, formulas neutralised, one line per tap")
    func csv() async throws {
        try await Self.withDatabase { database throws in
            var text = ""
            var filter = TapFilter()
            filter.since = Self.base + 60
            try database.exportTaps(matching: filter, format: .csv, limit: 3) { text += $0 }
            #expect(
                text.components(separatedBy: "\r\n") == [
                    "time,reader,uid,tagName,rule,outcome,reason,uri,detail,eventId,event,presentationId",
                    "2026-05-28T20:27:40.000Z,Back door,04A1B2,alice,door,denied,outside-window,,refused,,,",
                    #"2026-05-28T20:28:40.000Z,Front door,0455,"'@bob\u{1B}[2J","door,log",matched,,"'=HYPERLINK(""http://evil"",""x"")","run ok (exit 0); webhook ""queued"", 1\nline",,,"#,
                    #"2026-05-28T20:29:40.000Z,Front door,,,,failed,,,"'-tag removed",,,"#,
                    "",
                ])
        }
    }

    @Test("the export stops at the first error of its writer and rethrows it")
    func writerErrors() async throws {
        struct Closed: Error {}
        try await Self.withDatabase { database throws in
            var chunks = 0
            #expect(throws: Closed.self) {
                try database.exportTaps(matching: TapFilter(), format: .jsonl) { _ in
                    chunks += 1
                    throw Closed()
                }
            }
            #expect(chunks == 1)
        }
    }
}
