import Foundation
import Hummingbird
import NIOCore
import StateStore

extension WebConsole {
    /// Taps on one page of the door log.
    static let historyPageSize = 100
    /// Taps read at once by an export.
    static let exportPageSize = 2000

    struct HistoryFilterView {
        var reader: String
        var rule: String
        var tag: String
        var outcomes: [Choice]
        var reason: String
        var since: String
        var until: String
    }

    /// The door log's query: its filters and where the page starts.
    struct HistoryQuery: Decodable {
        var reader: String?
        var rule: String?
        var tag: String?
        var outcome: String?
        var reason: String?
        var since: String?
        var until: String?
        var before: String?
    }

    struct HistoryPage {
        var layout: Layout
        var filter: HistoryFilterView
        var taps: [TapRow]
        var next: String?
        var exportCSV: String
        var exportJSONL: String
    }

    /// `GET /history`: the door log, filtered, one page at a time along the history's time index; `GET
    /// /history/export.csv` and `/history/export.jsonl`: the filtered taps, oldest first, streamed page by page.
    func addHistoryRoutes(to router: Router<ConsoleContext>) {
        router.get("/history") { request, _ in
            try await self.page(request) { session in
                var layout = self.layout("Door log", path: "/history", session: session)
                let query = Self.query(request, as: HistoryQuery.self) ?? HistoryQuery()
                let (filter, problem) = Self.tapFilter(query)
                if let problem { layout.problem = problem }
                var taps: [TapRow] = []
                var next: String?
                if let database = self.database {
                    let cursor = query.before.flatMap(TapCursor.init)
                    let page = try database.taps(
                        matching: filter, order: .newestFirst, from: cursor, limit: Self.historyPageSize)
                    taps = page.taps.map { TapRow($0) }
                    next = page.next.map { "/history?" + Self.query(query, before: $0.description) }
                } else {
                    layout.problem = "A dry run keeps no history."
                }
                let kept = Self.query(query, before: nil)
                return self.render(
                    "history",
                    HistoryPage(
                        layout: layout, filter: Self.filterView(query), taps: taps, next: next,
                        exportCSV: "/history/export.csv?" + kept, exportJSONL: "/history/export.jsonl?" + kept))
            }
        }
        for format in TapExportFormat.allCases {
            router.get("/history/export.\(format.rawValue)") { request, _ in
                _ = try self.signedIn(request)
                guard let database = self.database else {
                    throw HTTPError(.notFound, message: "a dry run keeps no history")
                }
                let (filter, problem) = Self.tapFilter(Self.query(request, as: HistoryQuery.self) ?? HistoryQuery())
                if let problem { throw HTTPError(.badRequest, message: problem) }
                return Self.export(database, filter: filter, format: format)
            }
        }
    }

    /// The filtered taps in `format`, oldest first, read and written a page at a time: constant memory.
    static func export(_ database: StateDatabase, filter: TapFilter, format: TapExportFormat) -> Response {
        let type = format == .csv ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8"
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .contentDisposition: "attachment; filename=\"taps.\(format.rawValue)\"",
            ],
            body: ResponseBody { writer in
                var cursor: TapCursor?
                var text = format == .csv ? TapExportFormat.csvHeader + "\r\n" : ""
                repeat {
                    let page = try database.taps(
                        matching: filter, order: .oldestFirst, from: cursor, limit: exportPageSize)
                    for tap in page.taps { format.append(tap, to: &text) }
                    if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                    text.removeAll(keepingCapacity: true)
                    cursor = page.next
                } while cursor != nil
                try await writer.finish(nil)
            })
    }

    /// The filter a query asks for, and a sentence for what could not be read.
    static func tapFilter(_ query: HistoryQuery) -> (TapFilter, String?) {
        var filter = TapFilter()
        var problems: [String] = []
        func text(_ value: String?) -> String? {
            guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        filter.reader = text(query.reader)
        filter.rule = text(query.rule)
        if let tag = text(query.tag) {
            filter.tagName = tag
            let compact = tag.filter { $0 != ":" && $0 != " " && $0 != "-" }.uppercased()
            filter.uid = !compact.isEmpty && compact.allSatisfy(\.isHexDigit) ? compact : nil
        }
        if let outcome = text(query.outcome) {
            if let known = TapRecord.Outcome(rawValue: outcome) {
                filter.outcomes = [known]
            } else {
                problems.append("unknown outcome '\(DisplayText.visible(outcome))'")
            }
        }
        filter.reason = text(query.reason)
        for (key, value, keyPath) in [
            ("since", query.since, \TapFilter.since), ("until", query.until, \TapFilter.until),
        ] {
            guard let value = text(value) else { continue }
            if let date = ConsoleTime.date(value) {
                filter[keyPath: keyPath] = date
            } else {
                problems.append(
                    "'\(DisplayText.visible(value))' is not a time like 2026-12-01T08:00 or 2026-12-01 (\(key))")
            }
        }
        return (filter, problems.isEmpty ? nil : problems.joined(separator: "; ").capitalizedFirst + ".")
    }

    static func filterView(_ query: HistoryQuery) -> HistoryFilterView {
        let outcome = query.outcome ?? ""
        let choices =
            [Choice(value: "", label: "any", selected: outcome.isEmpty)]
            + TapRecord.Outcome.allCases.map {
                Choice(value: $0.rawValue, label: $0.rawValue, selected: $0.rawValue == outcome)
            }
        return HistoryFilterView(
            reader: query.reader ?? "", rule: query.rule ?? "", tag: query.tag ?? "", outcomes: choices,
            reason: query.reason ?? "", since: query.since ?? "", until: query.until ?? "")
    }

    /// The filter part of a query, percent-encoded again, with `before` set to a cursor (or left out).
    static func query(_ query: HistoryQuery, before: String?) -> String {
        let fields = [
            ("reader", query.reader), ("rule", query.rule), ("tag", query.tag), ("outcome", query.outcome),
            ("reason", query.reason), ("since", query.since), ("until", query.until), ("before", before),
        ]
        var components = URLComponents()
        components.queryItems = fields.compactMap { name, value in
            value.flatMap { $0.isEmpty ? nil : URLQueryItem(name: name, value: $0) }
        }
        // A `+` in a value must reach the form decoder as `%2B`, not as a space.
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// The times the door log's filter takes: `2026-12-01T08:00` (the browser's `datetime-local`, the host's zone),
/// `2026-12-01` (its midnight), or RFC 3339 with a zone.
enum ConsoleTime {
    static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = .current
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
