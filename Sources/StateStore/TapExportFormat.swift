import Foundation
import NDEF

/// How `tagrouter history --format jsonl|csv` writes each tap (docs/cli.md, "tagrouter history").
public enum TapExportFormat: String, Sendable, Hashable, CaseIterable {
    /// One JSON object per line, keys sorted, the fields of `history --json`'s taps.
    case jsonl
    /// Comma-separated values with a header row (``TapExportFormat/csvHeader``), RFC 4180 quoting.
    case csv

    /// The CSV header row, without its line end.
    public static let csvHeader =
        "time,reader,uid,tagName,rule,outcome,reason,uri,detail,eventId,event,presentationId"

    /// Appends one tap in this format, with its line end, to `out`.
    /// - Parameters:
    ///   - tap: the tap.
    ///   - out: where the line goes.
    public func append(_ tap: TapRecord, to out: inout String) {
        switch self {
        case .jsonl: Self.appendJSON(tap, to: &out)
        case .csv: Self.appendCSV(tap, to: &out)
        }
    }

    /// `{"detail":…,"event":…,"eventId":…,"outcome":…,"presentationId":…,"reader":…,"reason":…,"rule":…,`
    /// `"tagName":…,"time":…,"uid":…,"uri":…}` and a line feed, keys sorted, absent values left out.
    static func appendJSON(_ tap: TapRecord, to out: inout String) {
        var first = true
        func field(_ key: String, _ value: String?) {
            guard let value else { return }
            out += first ? "{\"" : ",\""
            first = false
            out += key
            out += "\":\""
            out += jsonEscaped(value)
            out += "\""
        }
        field("detail", tap.detail)
        field("event", tap.event)
        field("eventId", tap.eventID)
        field("outcome", tap.outcome.rawValue)
        field("presentationId", tap.presentationID)
        field("reader", tap.reader)
        field("reason", tap.reason)
        field("rule", tap.rule)
        field("tagName", tap.tagName)
        field("time", Timestamp.rfc3339(tap.time))
        field("uid", tap.uid)
        field("uri", tap.uri)
        out += "}\n"
    }

    /// The inside of a JSON string: `"`, `\` and controls escaped (``PrintableText/json(_:)``), and C1 controls
    /// as `\u` escapes too, so a line printed to a terminal cannot drive it.
    static func jsonEscaped(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return text
        }
        var out = ""
        for scalar in PrintableText.json(text).unicodeScalars {
            if PrintableText.isControl(scalar) {
                out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func appendCSV(_ tap: TapRecord, to out: inout String) {
        out += Timestamp.rfc3339(tap.time)
        for cell in [tap.reader, tap.uid, tap.tagName, tap.rule, tap.outcome.rawValue, tap.reason] {
            out += ","
            if let cell { appendCSVCell(cell, to: &out) }
        }
        for cell in [tap.uri, tap.detail, tap.eventID, tap.event, tap.presentationID] {
            out += ","
            if let cell { appendCSVCell(cell, to: &out) }
        }
        out += "\r\n"
    }

    /// Appends one cell: as it is when it is printable ASCII without a comma or a quote and does not begin like a
    /// formula (one pass over its bytes), else through ``csvCell(_:)``.
    static func appendCSVCell(_ text: String, to out: inout String) {
        var isPlain = true
        for byte in text.utf8
        where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") {
            isPlain = false
            break
        }
        if isPlain, let first = text.utf8.first, !formulaStarts.contains(first) {
            out += text
        } else if isPlain, text.isEmpty {
            return
        } else {
            out += csvCell(text)
        }
    }

    /// The first bytes of a cell a spreadsheet takes for a formula: `=`, `+`, `-`, `@`, tab, carriage return.
    static let formulaStarts: [UInt8] = Array("=+-@\t\r".utf8)

    /// One CSV cell: control characters escaped as on a terminal line (``PrintableText/line(_:escapingQuotes:)``),
    /// so a record stays on one line; a cell a spreadsheet would take for a formula (its first character `=`, `+`,
    /// `-`, `@`, a tab or a carriage return) prefixed with `'`; quoted, with `"` doubled, when it holds a comma, a
    /// quote or was prefixed.
    static func csvCell(_ text: String) -> String {
        var cell =
            text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? text : PrintableText.line(text)
        var mustQuote = false
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) {
            cell = "'" + cell
            mustQuote = true
        }
        if cell.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") }) {
            cell = cell.replacingOccurrences(of: "\"", with: "\"\"")
            mustQuote = true
        }
        return mustQuote ? "\"" + cell + "\"" : cell
    }
}
