import Foundation
import JSONOutput
import NDEF

/// What `tagrouter history` prints: recent taps and webhook deliveries, newest first.
public struct HistoryReport: Sendable, Hashable, Encodable {
    /// Recent taps.
    public var taps: [TapRecord]
    /// Recent webhook deliveries.
    public var deliveries: [Delivery]

    /// Creates a report.
    /// - Parameters:
    ///   - taps: the taps.
    ///   - deliveries: the deliveries.
    public init(taps: [TapRecord], deliveries: [Delivery]) {
        self.taps = taps
        self.deliveries = deliveries
    }

    /// The report as JSON (`--json`): `{"deliveries": [...], "taps": [...]}`, sorted keys.
    public func json() -> String {
        // Strings, numbers and optionals always encode.
        try! JSONOutput.string(self)
    }

    /// The report as text for a terminal: one line per tap, one line per delivery.
    public func text() -> String {
        var lines: [String] = ["Taps:"]
        if taps.isEmpty { lines.append("  (none)") }
        for tap in taps {
            var line =
                "  \(Timestamp.rfc3339(tap.time))  \(tap.outcome.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0))"
            line += "  reader=\(Self.quoted(tap.reader))  uid=\(tap.uid ?? "-")  rule=\(tap.rule ?? "-")"
            line += "  uri=\(tap.uri.map(Self.quoted) ?? "-")"
            if let name = tap.tagName {
                let cut = String(String.UnicodeScalarView(name.unicodeScalars.prefix(300)))
                line += "  tag=\"\(PrintableText.line(cut, escapingQuotes: true))\(cut == name ? "" : "…")\""
            }
            if let reason = tap.reason { line += "  reason=\(reason)" }
            if let event = tap.event, let presentation = tap.presentationID {
                line += "  event=\(event)  presentation=\(presentation)"
            }
            if let detail = tap.detail { line += "  (\(Self.quoted(detail)))" }
            lines.append(line)
        }
        lines.append("Webhook deliveries:")
        if deliveries.isEmpty { lines.append("  (none)") }
        for delivery in deliveries {
            let state = delivery.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
            var line = "  \(Timestamp.rfc3339(milliseconds: delivery.createdAt))  \(state)"
            line += "  \(delivery.method) \(delivery.shownTarget)  rule=\(delivery.rule)  attempts=\(delivery.attempts)"
            line += "  status=\(delivery.lastStatus.map(String.init) ?? "-")"
            if delivery.state == .pending {
                line += "  next=\(Timestamp.rfc3339(milliseconds: delivery.nextAttemptAt))"
            }
            if let error = delivery.lastError, delivery.state != .delivered { line += "  error=\(Self.quoted(error))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text safe for one terminal line: control characters escaped, long text cut.
    static func quoted(_ text: String) -> String {
        let shown = PrintableText.line(String(String.UnicodeScalarView(text.unicodeScalars.prefix(300))))
        return text.unicodeScalars.count > 300 ? shown + "…" : shown
    }
}
