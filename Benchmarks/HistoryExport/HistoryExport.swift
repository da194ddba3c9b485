import Foundation
import Logging
import StateStore

/// The audit trail over 1,000,000 generated taps (docs/performance.md, "History: export and retention"): the
/// export rate of `history --format csv` and `jsonl` (target: at least 100,000 taps a second) and the growth of
/// RssAnon while one runs (target: under 4 MiB), then pruning to the default retention and to a size, with the
/// longest batch (what a tap being recorded may wait for). A plain executable; exits 1 when a target is missed.
///
/// `swift run -c release --package-path Benchmarks HistoryExport [TAPS]`
@main
enum HistoryExport {
    static let day = 86_400.0

    static func main() throws {
        let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
        let directory = NSTemporaryDirectory() + "history-export-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "history-export")
        logger.logLevel = .error
        let database = try StateDatabase(directory: directory, logger: logger)
        let now = Date()

        // Taps spread evenly over the last 400 days, newest last, on 4 readers.
        var clock = ContinuousClock.now
        var batch: [TapRecord] = []
        batch.reserveCapacity(10_000)
        for index in 0..<count {
            let age = Double(count - index) * 400 * day / Double(count)
            var tap = TapRecord(
                time: now - age, reader: "ACS ACR122U PICC Interface 0\(index % 4)",
                uid: "04" + String(index * 2_654_435_761 % 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true),
                uri: index % 3 == 0 ? "https://door.example/open?id=\(index)" : nil,
                rule: index % 7 == 0 ? "door,log" : "door", outcome: index % 10 == 0 ? .denied : .matched,
                detail: "run ok (exit 0); webhook queued", eventID: UUID().uuidString.lowercased())
            if index % 10 == 0 { tap.reason = "unknown-tag" }
            if index % 2 == 0 { tap.tagName = "person \(index % 500)" }
            batch.append(tap)
            if batch.count == 10_000 {
                try database.recordTaps(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try database.recordTaps(batch)
        batch = []
        let generated = clock.duration(to: .now)
        let size = try database.usedBytes()
        print(
            "generated \(count) taps in \(seconds(generated)) s; \(size / 1_048_576) MiB in use, "
                + "\(size / Int64(count)) bytes a tap")

        let sink = open("/dev/null", O_WRONLY)
        var passed = true
        for format in [TapExportFormat.csv, .jsonl] {
            // Warm-up: the code, SQLite's page cache and the buffer are in place before the baseline.
            try database.exportTaps(matching: TapFilter(), format: format, limit: 10_000) { write(sink, $0) }
            let baseline = rssAnon()
            var peak = baseline
            var chunks = 0
            clock = .now
            let exported = try database.exportTaps(matching: TapFilter(), format: format) { text in
                write(sink, text)
                chunks += 1
                if chunks % 16 == 0 { peak = max(peak, rssAnon()) }
            }
            let elapsed = clock.duration(to: .now)
            peak = max(peak, rssAnon())
            let rate = Double(exported) / seconds(elapsed)
            let growth = peak - baseline
            print(
                "export \(format.rawValue): \(exported) taps in \(seconds(elapsed)) s, \(Int(rate)) taps/s; "
                    + "RssAnon \(baseline) KiB before, \(peak) KiB at most during, +\(growth) KiB")
            passed = passed && exported == count && rate >= 100_000 && growth < 4096
        }

        // Pruning: the default retention (a year) removes the oldest 35 days, then a size of half what is in use.
        for (label, retention) in [
            ("default retention (365d, 1 GB)", HistoryRetention.default),
            ("half the size", HistoryRetention(maxAge: .seconds(400 * 86_400), maxBytes: try database.usedBytes() / 2)),
        ] {
            var deleted = 0
            var batches = 0
            var longest = Duration.zero
            clock = .now
            while true {
                let start = ContinuousClock.now
                let pruned = try database.pruneTaps(retention, now: now)
                longest = max(longest, start.duration(to: .now))
                if pruned.deleted == 0 { break }
                deleted += pruned.deleted
                batches += 1
            }
            print(
                "prune to \(label): \(deleted) taps in \(batches) batches, \(seconds(clock.duration(to: .now))) s; "
                    + "longest batch \(seconds(longest) * 1000) ms; \(try database.tapCount()) taps left, "
                    + "\(try database.usedBytes() / 1_048_576) MiB in use")
        }
        close(sink)
        print(passed ? "targets met" : "TARGET MISSED (100,000 taps/s, RssAnon growth under 4 MiB)")
        if !passed { exit(1) }
    }

    static func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = Foundation.write(descriptor, bytes.baseAddress, bytes.count) }
    }

    /// RssAnon of this process in KiB (`/proc/self/status`).
    static func rssAnon() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }

    static func seconds(_ duration: Duration) -> Double {
        ((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1000).rounded() / 1000
    }
}
