import AASAPatterns
import Foundation
import NDEF
import SUNMessage

/// The conditions of a rule's `match`, validated and compiled (docs/rules.md, "Conditions"). All given must hold.
struct MatchConditions: Sendable {
    var domains: [DomainPattern]?
    var schemes: [String]?
    var components: [ComponentObject]?
    var uids: Set<String>?
    var mime: [MIMEPattern]?
    var external: Set<String>?
    var text: Pattern?
    var reader: Pattern?
    var tech: Set<String>?
    var any = false
    /// `tags`: names and groups of enrolled tags (docs/doors.md, "Doors").
    var tags: Set<String>?
    /// `when`: the windows the rule admits tags in; nil: at any time.
    var schedule: Schedule?
    /// The calendar of `timeZone`, the zone of `when` and of the enrolled tags' validity days, made once at load
    /// (not per tap).
    var calendar = Calendar.wallClock(in: .current)
    /// The zone of `when` and of the enrolled tags' validity days (`timeZone`).
    var timeZone: TimeZone { calendar.timeZone }
    /// `sun`: the SUN message the tag's URI must carry (docs/doors.md, "SUN: tags that prove themselves").
    var sun: SUNCondition?
    /// Whether the rule is a door rule (it has `tags`, `when`, `sun` or `denied`), whose refusals are recorded.
    var isDoor = false
    /// The live association file whose components this rule uses (docs/rules.md, "Live association files").
    var live: AssociatedDomain?
    /// Why the rule matches nothing for now: its live file is not fetched yet, or cannot be used.
    var unavailable: String?

    /// What a rule whose live file was never fetched says in `explain`.
    static func notFetched(_ domain: String) -> String {
        "aasa: the association file of \(domain) has not been fetched yet, so the rule matches nothing "
            + "(tagrouter aasa refresh fetches it)"
    }

    /// The URI schemes the conditions let through, lower-cased: `schemes` if given, else `http` and `https` with
    /// `domains` (a live `aasa` sets them too); nil when any scheme passes (docs/rules.md, "What a tag may
    /// choose").
    var allowedSchemes: Set<String>? {
        if let schemes { return Set(schemes) }
        return domains == nil ? nil : ["http", "https"]
    }

    /// Whether the rule looks at the URI at all.
    var needsURI: Bool { domains != nil || schemes != nil || components != nil || live != nil || sun != nil }

    /// The result of evaluating a rule, with a reason when explaining.
    struct Outcome {
        var matched: Bool
        var reason: String
        /// Set when every condition held but who or when: the rule refuses the tag (docs/doors.md, "Refusals").
        var refusal: DenialReason?
        /// The SUN message `sun` verified.
        var sun: VerifiedSUN?
    }

    /// Evaluates the conditions at `date`; builds a reason only when `explaining`. With `sun`, the UID that `uid`
    /// and `tags` look at is the one the verified message names (an NTAG 424 DNA may answer a random UID to the
    /// reader), and `enrolled` looks it up in the tags file.
    func evaluate(
        _ event: TagEvent, _ subject: inout MatchSubject?, at date: Date, explaining: Bool,
        enrolled: (String) -> KnownTag? = { _ in nil }
    ) -> Outcome {
        var outcome = evaluateContent(event, &subject, explaining: explaining)
        guard outcome.matched else { return outcome }
        var gated = event
        if let sun {
            func refuse(_ reason: DenialReason, _ detail: @autoclosure () -> String) -> Outcome {
                Outcome(matched: false, reason: explaining ? "sun: " + detail() : "", refusal: reason)
            }
            switch sun.verify(event.uri ?? "", prefixLength: event.uriPrefixLength) {
            case .verified(let reading):
                let verified = VerifiedSUN(
                    uid: HexText.string(reading.uid, uppercase: true), counter: reading.counter,
                    fileData: reading.fileData, keySetID: sun.keySetID, messageItems: sun.messageItems)
                outcome.sun = verified
                gated.uid = verified.uid
                gated.known = enrolled(verified.uid)
            case .wrongKey: return refuse(.wrongKey, "the PICCData does not decrypt with the meta read key (wrong key)")
            case .badMAC: return refuse(.badMAC, "the MAC does not match (an altered URL, or the wrong file read key)")
            case .malformed(let why): return refuse(.notSUN, why)
            }
        }
        if let (reason, detail) = refusal(gated, at: date, explaining: explaining) {
            return Outcome(matched: false, reason: detail, refusal: reason, sun: outcome.sun)
        }
        if explaining, let verified = outcome.sun {
            outcome.reason += "; sun: verified, UID \(verified.uid), counter \(verified.counter)"
            if let sun, !sun.macInput.coversURL {
                outcome.reason += " (macInput: \(sun.macInput.rawValue): the URL around the message is not proved)"
            }
        }
        return outcome
    }

    /// Who and when: the tag's UID or enrolled entry, its validity and the rule's windows; nil when they admit
    /// it (docs/doors.md, "Refusals", for the order).
    private func refusal(_ event: TagEvent, at date: Date, explaining: Bool) -> (DenialReason, String)? {
        func refuse(_ reason: DenialReason, _ detail: @autoclosure () -> String) -> (DenialReason, String) {
            (reason, explaining ? detail() : "")
        }
        if let uids {
            guard let uid = event.uid else { return refuse(.unknownTag, "uid: the tag has no UID") }
            if !uids.contains(uid) { return refuse(.unknownTag, "uid: \(uid) is not listed") }
        }
        if let tags {
            guard let known = event.known else {
                return refuse(
                    .unknownTag, event.uid.map { "tags: \($0) is not enrolled" } ?? "tags: the tag has no UID")
            }
            let name = "'\(PrintableText.line(known.name))'"
            guard known.isListed(in: tags) else {
                return refuse(.notListed, "tags: \(name) is enrolled, but neither it nor its groups are listed")
            }
            let day = CalendarDay(date, calendar: calendar)
            switch known.refusal(on: day) {
            case .disabled: return refuse(.disabled, "tags: \(name) is disabled")
            case .notYetValid:
                return refuse(.notYetValid, "tags: \(name) is valid from \(known.validFrom!), and it is \(day)")
            case .expired:
                return refuse(.expired, "tags: \(name) was valid until \(known.validUntil!), and it is \(day)")
            default: break
            }
        }
        if let schedule, !schedule.admits(date) {
            return refuse(
                .outsideWindow,
                "when: \(Self.localTime(date, calendar: schedule.calendar)) is outside "
                    + schedule.windows.map(\.description).joined(separator: ", "))
        }
        return nil
    }

    /// `Tue 2026-12-01 20:00 Europe/Berlin`, for `explain`.
    static func localTime(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let day = TimeWindow.dayNames[(parts.weekday ?? 1) - 1]
        let clock = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return "\(day) \(CalendarDay(date, calendar: calendar)) \(clock) \(calendar.timeZone.identifier)"
    }

    /// What the tag holds and where it is: every condition but who and when.
    private func evaluateContent(_ event: TagEvent, _ subject: inout MatchSubject?, explaining: Bool) -> Outcome {
        func fail(_ reason: @autoclosure () -> String) -> Outcome {
            Outcome(matched: false, reason: explaining ? reason() : "")
        }
        if uids == nil, tags == nil, tech == nil, !any, Self.isBlank(event) {
            return fail("the tag is blank (no NDEF records): only uid, tags, tech or any rules take blank tags")
        }
        if needsURI {
            guard let uri = subject?.uri else {
                return fail(event.uri == nil ? "the tag has no URI" : "the tag's URI is not a valid URI")
            }
            if let schemes {
                if !schemes.contains(uri.scheme) {
                    return fail("schemes: '\(uri.scheme)' is not one of \(schemes.joined(separator: ", "))")
                }
            } else if domains != nil, uri.scheme != "http", uri.scheme != "https" {
                return fail("domains: scheme '\(uri.scheme)' is not http or https (add `schemes` to accept it)")
            }
            if let domains {
                guard let host = uri.host else { return fail("domains: the URI has no host") }
                let port = uri.effectivePort
                if !domains.contains(where: { $0.matches(host: host, port: port) }) {
                    let shown = String(host) + (uri.port.map { ":\($0)" } ?? "")
                    return fail(
                        "domains: host '\(shown)' matches none of \(domains.map(\.description).joined(separator: ", "))"
                    )
                }
            }
        }
        if let tech, !tech.contains(event.tech) { return fail("tech: '\(event.tech)' is not listed") }
        if let reader, !reader.matches(event.reader) {
            return fail("reader: '\(event.reader)' does not match '\(reader.source)'")
        }
        if let mime, !event.mediaTypes.contains(where: { type in mime.contains { $0.matches(type) } }) {
            return fail("mime: no record has a listed media type")
        }
        if let external, !event.externalTypes.contains(where: external.contains) {
            return fail("external: no record has a listed external type")
        }
        if let text, !event.texts.contains(where: text.matches) {
            return fail("text: no Text record matches '\(text.source)'")
        }
        if let unavailable { return fail(unavailable) }
        if let components, subject != nil {
            for component in components {
                guard component.matches(&subject!) else { continue }
                if component.isExcluding {
                    return fail("components: excluded by \(component.summary) at \(component.location)")
                }
                return Outcome(
                    matched: true,
                    reason: explaining ? "components: \(component.summary) at \(component.location)" : "")
            }
            return fail("components: no component object matches")
        }
        return Outcome(matched: true, reason: explaining ? "all of: \(matchedSummary)" : "")
    }

    /// Whether the event carries no NDEF content at all (a blank tag, or a card without NDEF).
    static func isBlank(_ event: TagEvent) -> Bool {
        event.records.isEmpty && event.uri == nil && event.texts.isEmpty && event.mediaTypes.isEmpty
            && event.externalTypes.isEmpty
    }

    /// The conditions that held, for `explain`.
    private var matchedSummary: String {
        var parts: [String] = []
        if schemes != nil { parts.append("schemes") }
        if domains != nil { parts.append("domains") }
        if uids != nil { parts.append("uid") }
        if tech != nil { parts.append("tech") }
        if reader != nil { parts.append("reader") }
        if mime != nil { parts.append("mime") }
        if external != nil { parts.append("external") }
        if text != nil { parts.append("text") }
        if any { parts.append("any") }
        if tags != nil { parts.append("tags") }
        if sun != nil { parts.append("sun") }
        if schedule != nil { parts.append("when") }
        return parts.joined(separator: ", ")
    }
}
