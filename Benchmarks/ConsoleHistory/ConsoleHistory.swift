import Foundation
import Logging
import StateStore

/// The web console's door log over 100,000 generated taps (docs/performance.md, "The console's door log"): one
/// page of 100 taps as the console reads it (`StateDatabase.taps(matching:order:from:limit:)`, keyset pages on
/// the history's time index), first, deep in the history and filtered (target: under 100 ms each), and the
/// console's export, read 2,000 taps a page and written as CSV and JSON lines (target: at least 100,000 taps a
/// second). What is measured is the database side of a page, not the HTTP request. A plain executable; exits 1
/// when a target is missed.
///
/// `swift run -c release --package-path Benchmarks ConsoleHistory [TAPS]`
@main
enum ConsoleHistory {
    static func main() throws {
        let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
        let directory = NSTemporaryDirectory() + "console-history-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "console-history")
        logger.logLevel = .error
        let database = try StateDatabase(directory: directory, logger: logger)
        let now = Date()
        var batch: [TapRecord] = []
        for index in 0..<count {
            var tap = TapRecord(
                time: now - Double(count - index) * 30, reader: "ACS ACR122U PICC Interface 0\(index % 4)",
                uid: "04" + String(index * 2_654_435_761 % 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true),
                uri: index % 3 == 0 ? "https://door.example/open?id=\(index)" : nil, rule: "door",
                outcome: index % 10 == 0 ? .denied : .matched, detail: "run ok (exit 0)")
            if index % 10 == 0 { tap.reason = index % 20 == 0 ? "disabled" : "unknown-tag" }
            tap.tagName = "person \(index % 500)"
            batch.append(tap)
            if batch.count == 10_000 {
                try database.recordTaps(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try database.recordTaps(batch)
        print("generated \(count) taps")

        var passed = true
        // Halfway down the history: the cursor a browser holds after following "Older taps" count/200 times.
        var middle: TapCursor?
        for _ in 0..<(count / 200) {
            middle = try database.taps(matching: TapFilter(), order: .newestFirst, from: middle, limit: 100).next
        }
        var denied = TapFilter()
        denied.reader = "ACS ACR122U PICC Interface 00"
        denied.reason = "disabled"
        var tag = TapFilter()
        tag.tagName = "person 123"
        for (label, filter, cursor) in [
            ("first page", TapFilter(), nil), ("a page halfway down", TapFilter(), middle),
            ("refusals of one reader for one reason", denied, nil), ("one tag's taps", tag, nil),
        ] as [(String, TapFilter, TapCursor?)] {
            var times: [Duration] = []
            for _ in 0..<31 {
                let clock = ContinuousClock.now
                let page = try database.taps(matching: filter, order: .newestFirst, from: cursor, limit: 100)
                times.append(clock.duration(to: .now))
                precondition(!page.taps.isEmpty)
            }
            times.sort()
            let worst = seconds(times[times.count - 1]) * 1000
            print(
                "page of 100, \(label): median \(milliseconds(times[times.count / 2])) ms, slowest "
                    + "\(milliseconds(times[times.count - 1])) ms")
            passed = passed && worst < 100
        }

        let sink = open("/dev/null", O_WRONLY)
        defer { close(sink) }
        for format in TapExportFormat.allCases {
            let clock = ContinuousClock.now
            var cursor: TapCursor?
            var exported = 0
            var text = format == .csv ? TapExportFormat.csvHeader + "\r\n" : ""
            repeat {
                let page = try database.taps(matching: TapFilter(), order: .oldestFirst, from: cursor, limit: 2000)
                for tap in page.taps { format.append(tap, to: &text) }
                exported += page.taps.count
                _ = text.withCString { write(sink, $0, strlen($0)) }
                text.removeAll(keepingCapacity: true)
                cursor = page.next
            } while cursor != nil
            let elapsed = clock.duration(to: .now)
            let rate = Double(exported) / seconds(elapsed)
            print(
                "export \(format.rawValue), 2,000 a page: \(exported) taps in \(seconds(elapsed)) s, \(Int(rate)) taps/s"
            )
            passed = passed && exported == count && rate >= 100_000
        }
        print(passed ? "targets met" : "a target was missed")
        if !passed { exit(1) }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.2f", seconds(duration) * 1000)
    }
}
