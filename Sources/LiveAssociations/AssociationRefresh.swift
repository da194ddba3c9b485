public import Foundation
public import StateStore
public import TagRules

/// One refresh of one domain's association file, shared by the router's ``AssociationRefresher`` and
/// `tagrouter aasa refresh` (docs/rules.md, "Live association files").
public enum AssociationRefresh {
    /// What a refresh did.
    public enum Outcome: Sendable, Equatable {
        /// A new copy was fetched, validated and cached.
        case fetched(bytes: Int)
        /// The server answered 304 Not Modified: the cached copy is current.
        case notModified
        /// The fetch failed or the file was refused; the last good copy, if any, stays. One line naming the domain.
        case failed(String)
    }

    /// Fetches `domain`'s file (conditionally when a copy is cached), validates it against the rules that use it,
    /// and records the result in `cache` (when given).
    /// - Parameters:
    ///   - domain: the domain.
    ///   - previous: what is cached for it, if anything.
    ///   - ruleSet: the rules, whose uses of the domain validate the file.
    ///   - fetcher: the fetcher.
    ///   - cache: the state database, nil to keep the result in memory only (dry run).
    ///   - now: the time of the attempt.
    /// - Returns: the outcome and the domain's new cache entry.
    public static func refresh(
        _ domain: String, previous: CachedAssociation?, ruleSet: RuleSet, fetcher: AssociationFetcher,
        cache: StateDatabase?, now: Date = Date()
    ) async -> (outcome: Outcome, entry: CachedAssociation) {
        var entry =
            previous
            ?? CachedAssociation(
                domain: domain, body: nil, fetchedAt: nil, etag: nil, lastModified: nil, checkedAt: now,
                lastError: nil)
        entry.checkedAt = now
        let hasCopy = previous?.body != nil
        let outcome: Outcome
        do {
            switch try await fetcher.fetch(
                domain, etag: hasCopy ? previous?.etag : nil, lastModified: hasCopy ? previous?.lastModified : nil)
            {
            case .notModified:
                entry.fetchedAt = now
                entry.lastError = nil
                try cache?.confirmAssociation(for: domain, at: now)
                outcome = .notModified
            case .fetched(let body, let etag, let lastModified):
                if let problem = ruleSet.problem(with: body, for: domain) {
                    throw AssociationFetchError(problem)
                }
                entry.body = body
                entry.fetchedAt = now
                entry.etag = etag
                entry.lastModified = lastModified
                entry.lastError = nil
                try cache?.storeAssociation(body, etag: etag, lastModified: lastModified, for: domain, at: now)
                outcome = .fetched(bytes: body.count)
            }
        } catch {
            let message = "\(error)"
            entry.lastError = message
            try? cache?.recordAssociationFailure(message, for: domain, at: now)
            outcome = .failed(message)
        }
        return (outcome, entry)
    }

    /// The fetched files of cache entries, by domain (entries without a good copy left out).
    /// - Parameter entries: the cache entries.
    /// - Returns: the files to install.
    public static func files(_ entries: [CachedAssociation]) -> [String: AssociationFile] {
        var files: [String: AssociationFile] = [:]
        for entry in entries {
            guard let body = entry.body else { continue }
            files[entry.domain] = AssociationFile(data: body, fetchedAt: entry.fetchedAt ?? entry.checkedAt)
        }
        return files
    }
}
