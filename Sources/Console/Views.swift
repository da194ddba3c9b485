import Foundation
import StateStore

/// What every page's header and footer show.
struct Layout: Sendable {
    struct NavItem: Sendable {
        var href: String
        var label: String
        var current: Bool
    }

    var title: String
    var csrf: String
    var signedIn: Bool
    /// The session's role, shown in the header.
    var role: String?
    /// Whether the session may change things: a viewer's pages offer no write form.
    var canWrite: Bool
    var notice: String?
    var problem: String?
    var nav: [NavItem]

    static let pages = [
        ("/", "Live"), ("/history", "Door log"), ("/tags", "Tags"), ("/readers", "Readers"),
        ("/deliveries", "Deliveries"), ("/rules", "Rules"),
    ]

    init(title: String, path: String, session: Session?, notice: (text: String, isProblem: Bool)? = nil) {
        self.title = title
        csrf = session?.csrf ?? ""
        signedIn = session != nil
        role = session?.role.rawValue
        canWrite = session?.role == .admin
        self.notice = notice.flatMap { $0.isProblem ? nil : $0.text }
        problem = notice.flatMap { $0.isProblem ? $0.text : nil }
        nav = session == nil ? [] : Self.pages.map { NavItem(href: $0.0, label: $0.1, current: $0.0 == path) }
    }
}

/// One tap as a table row (the Live page, the door log) and as the live feed's JSON: every text a tag chose goes
/// through ``DisplayText``; the templates and console.js escape the rest.
struct TapRow: Sendable, Encodable {
    var time: String
    var reader: String
    var tag: String
    var uri: String
    var uriLink: String?
    var rule: String
    var outcome: String
    var reason: String?
    var detail: String
    var latency: String

    init(_ record: TapRecord, latency: Duration? = nil, isHeldForEnrollment: Bool = false) {
        time = Timestamp.rfc3339(record.time)
        reader = DisplayText.visible(record.reader)
        switch (record.tagName, record.uid) {
        case (let name?, let uid?): tag = DisplayText.visible(name) + " (" + uid + ")"
        case (let name?, nil): tag = DisplayText.visible(name)
        case (nil, let uid?): tag = uid
        case (nil, nil): tag = ""
        }
        uri = DisplayText.visible(record.uri)
        uriLink = DisplayText.link(record.uri)
        rule = DisplayText.visible(record.rule)
        outcome = isHeldForEnrollment ? "held" : record.outcome.rawValue
        reason = record.reason.map(DisplayText.visible)
        detail = DisplayText.visible(record.detail)
        self.latency = latency.map { Self.milliseconds($0) } ?? ""
    }

    init(_ tap: LiveTap) {
        self.init(tap.record, latency: tap.latency, isHeldForEnrollment: tap.isHeldForEnrollment)
    }

    /// `12.3 ms`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = seconds * 10_000 + attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}

/// One reader on the Live page and its JSON in the feed.
struct PresenceRow: Sendable, Encodable {
    var name: String
    var state: String

    init(_ reader: ReaderState) {
        name = DisplayText.visible(reader.name)
        if reader.hasTag {
            let tag = reader.tagOnIt.map { TapRow($0).tag } ?? ""
            state = tag.isEmpty ? "a tag on it" : "\(tag) on it"
        } else {
            state = reader.isConnected ? "no tag" : "not seen"
        }
    }
}

/// A choice of a `<select>`.
struct Choice: Sendable {
    var value: String
    var label: String
    var selected: Bool
}
