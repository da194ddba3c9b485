import AASAPatterns

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
    var needsURI: Bool { domains != nil || schemes != nil || components != nil || live != nil }

    /// The result of evaluating a rule, with a reason when explaining.
    struct Outcome {
        var matched: Bool
        var reason: String
    }

    /// Evaluates the conditions; builds a reason only when `explaining`.
    func evaluate(_ event: TagEvent, _ subject: inout MatchSubject?, explaining: Bool) -> Outcome {
        func fail(_ reason: @autoclosure () -> String) -> Outcome {
            Outcome(matched: false, reason: explaining ? reason() : "")
        }
        if uids == nil, tech == nil, !any, Self.isBlank(event) {
            return fail("the tag is blank (no NDEF records): only uid, tech or any rules take blank tags")
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
        if let uids {
            guard let uid = event.uid else { return fail("uid: the tag has no UID") }
            if !uids.contains(uid) { return fail("uid: \(uid) is not listed") }
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
        return parts.joined(separator: ", ")
    }
}
