import StateStore
import TagActions

/// What `tagrouter aasa show` prints (docs/cli.md, "tagrouter aasa"), as text or JSON.
struct ShowReport: Encodable {
    /// The cached copy.
    struct Cache: Encodable {
        var fetchedAt: String?
        var checkedAt: String
        var bytes: Int?
        var etag: String?
        var lastModified: String?
        var lastError: String?

        init(_ entry: CachedAssociation) {
            fetchedAt = entry.fetchedAt.map(Timestamp.rfc3339)
            checkedAt = Timestamp.rfc3339(entry.checkedAt)
            bytes = entry.body?.count
            etag = entry.etag
            lastModified = entry.lastModified
            lastError = entry.lastError
        }
    }

    /// One rule that uses the domain's file.
    struct RuleUse: Encodable {
        var rule: String
        var location: String
        var appID: String?
        var components: [String]?
        var unavailable: String?
    }

    /// How one of those rules decides on the URI.
    struct Verdict: Encodable {
        var rule: String
        var verdict: String
        var reason: String
    }

    var domain: String
    var url: String
    var cache: Cache?
    var cacheProblem: String?
    var rules: [RuleUse]
    var uri: String?
    var verdicts: [Verdict]?

    /// The human rendering.
    var text: String {
        var lines = ["domain: \(domain)", "url: \(url)"]
        if let cacheProblem { lines.append("cache: unreadable: \(cacheProblem)") }
        if let cache {
            if let fetchedAt = cache.fetchedAt {
                lines.append("cached: fetched \(fetchedAt), \(cache.bytes ?? 0) bytes")
            } else {
                lines.append("cached: nothing (never fetched successfully)")
            }
            lines.append("last checked: \(cache.checkedAt)")
            if let etag = cache.etag { lines.append("etag: \(etag)") }
            if let lastModified = cache.lastModified { lines.append("last-modified: \(lastModified)") }
            if let lastError = cache.lastError { lines.append("last error: \(lastError)") }
        } else if cacheProblem == nil {
            lines.append("cached: nothing (never fetched)")
        }
        for use in rules {
            lines.append("rule '\(use.rule)' (\(use.location))" + (use.appID.map { ", appID \($0)" } ?? "") + ":")
            if let components = use.components {
                lines += components.map { "  \($0)" }
            }
            if let unavailable = use.unavailable { lines.append("  matches nothing: \(unavailable)") }
        }
        if let uri, let verdicts {
            lines.append("uri: \(uri)")
            lines += verdicts.map { "  \($0.rule): \($0.verdict): \($0.reason)" }
        }
        return lines.joined(separator: "\n")
    }
}
