import Foundation
import JSONOutput
import LiveAssociations
import Logging
import StateStore
import TagActions
import TagRouterCore
import TagRules

/// `tagrouter aasa refresh` and `tagrouter aasa show` (docs/cli.md), and what `check`, `match` and `doctor` say
/// about live association files (docs/rules.md, "Live association files").
public enum AssociationCommands {
    /// `tagrouter aasa refresh`: fetches the live association files now and caches them in the state database,
    /// where a running router picks them up within a second.
    /// - Parameters:
    ///   - domains: the domains to fetch; every domain the rules use when empty.
    ///   - sources: the rules files and folders; the configured default when empty.
    ///   - stateDirectory: `--state-dir`; the default one when nil.
    ///   - environment: the process environment (`TAGROUTER_AASA_CA`, `TAGROUTER_AASA_CONNECT_TO`, `${VAR}`).
    /// - Returns: one line per domain; status 1 when a fetch failed (its line is on standard error).
    public static func refresh(
        domains: [String], sources: [String], stateDirectory: String?, environment: [String: String]
    ) async -> CommandOutput {
        let loaded = RuleSet.load(sources: HostDefaults.rulesSources(sources), environment: environment)
        guard let ruleSet = loaded.ruleSet else { return .lines([CheckReport(loaded).text], status: 1) }
        let used = ruleSet.liveDomains
        let wanted = domains.isEmpty ? used : domains.map { $0.lowercased() }
        if used.isEmpty {
            return .failure("The rules use no live association file (aasa: { domain: … }): nothing to refresh.")
        }
        if let unknown = wanted.first(where: { !used.contains($0) }) {
            return .failure(
                "No rule uses the association file of \(unknown); the rules use \(used.joined(separator: ", ")).")
        }
        var logger = ReaderCommands.logger
        logger.logLevel = .error
        let cache: StateDatabase
        let fetcher: AssociationFetcher
        do {
            cache = try StateDatabase(directory: HostDefaults.stateDirectory(stateDirectory), logger: logger)
            var configuration = try AssociationFetcher.Configuration.from(environment: environment)
            configuration.userAgent = "tagrouter/\(Version.current)"
            fetcher = try AssociationFetcher(configuration: configuration)
        } catch {
            return .failure("Error: \(error)")
        }
        var output = CommandOutput()
        for domain in wanted {
            let previous = try? cache.cachedAssociation(for: domain)
            let (outcome, entry) = await AssociationRefresh.refresh(
                domain, previous: previous, ruleSet: ruleSet, fetcher: fetcher, cache: cache)
            switch outcome {
            case .fetched(let bytes):
                output.standardOutput += "\(domain): fetched \(bytes) bytes\n"
            case .notModified:
                output.standardOutput += "\(domain): not modified (HTTP 304), cached copy confirmed\n"
            case .failed(let message):
                let kept =
                    entry.body != nil
                    ? " (keeping the copy fetched \(entry.fetchedAt.map(Timestamp.rfc3339) ?? "earlier"))" : ""
                output.errors.append(message + kept)
                output.status = 1
            }
        }
        try? await fetcher.shutdown()
        return output
    }

    /// `tagrouter aasa show`: what is cached for a domain, the components each rule takes from it, and, with a
    /// URI, how each of those rules decides on it.
    /// - Parameters:
    ///   - domain: the domain.
    ///   - uri: a URI to try, if any.
    ///   - sources: the rules files and folders; the configured default when empty.
    ///   - stateDirectory: `--state-dir`; the default one when nil.
    ///   - json: print JSON.
    /// - Returns: the report; status 1 when the rules are invalid or neither the rules nor the cache know the
    ///   domain.
    public static func show(domain: String, uri: String?, sources: [String], stateDirectory: String?, json: Bool)
        -> CommandOutput
    {
        let environment = HostDefaults.environment
        let loaded = RuleSet.load(sources: HostDefaults.rulesSources(sources), environment: environment)
        guard let loadedRules = loaded.ruleSet else { return .lines([CheckReport(loaded).text], status: 1) }
        let domain = domain.lowercased()
        let (entries, cacheProblem) = cachedEntries(stateDirectory: HostDefaults.stateDirectory(stateDirectory))
        let uses = loadedRules.associatedDomains.filter { $0.domain == domain }
        let entry = entries[domain]
        if uses.isEmpty, entry == nil {
            return .failure("No rule uses the association file of \(domain), and none is cached.")
        }
        let ruleSet = loadedRules.applying(AssociationRefresh.files(Array(entries.values)))
        let configuration = (try? AssociationFetcher.Configuration.from(environment: environment)) ?? .init()
        var report = ShowReport(
            domain: domain, url: AssociationFetcher.url(for: domain, configuration: configuration),
            cache: entry.map(ShowReport.Cache.init), cacheProblem: cacheProblem,
            rules: uses.map { use in
                ShowReport.RuleUse(
                    rule: use.rule, location: use.location.description, appID: use.appID,
                    components: ruleSet.liveComponentSummaries(of: use.rule),
                    unavailable: ruleSet.unavailableReason(of: use.rule))
            })
        if let uri {
            let names = Set(uses.map(\.rule))
            let event = TagEvent(uid: nil, reader: "cli", tech: "type2", uri: uri)
            report.uri = uri
            report.verdicts = ruleSet.explain(event).filter { names.contains($0.rule) }.map {
                ShowReport.Verdict(rule: $0.rule, verdict: $0.verdict.rawValue, reason: $0.reason)
            }
        }
        return .lines([json ? JSONOutput.line(report) : report.text])
    }

    /// The cache entries of a state directory, read without creating the database; with the reason when it
    /// cannot be read.
    static func cachedEntries(stateDirectory: String) -> ([String: CachedAssociation], String?) {
        guard StateDatabase.exists(in: stateDirectory) else { return ([:], nil) }
        var logger = ReaderCommands.logger
        logger.logLevel = .error
        do {
            let entries = try StateDatabase(directory: stateDirectory, logger: logger).cachedAssociations()
            return (Dictionary(entries.map { ($0.domain, $0) }, uniquingKeysWith: { first, _ in first }), nil)
        } catch {
            return ([:], "\(error)")
        }
    }

    /// The warnings `tagrouter check` adds: each rule whose live file is not fetched yet, or cannot be used.
    /// - Parameters:
    ///   - ruleSet: the loaded rules.
    ///   - stateDirectory: where the cache is.
    /// - Returns: one warning per such rule, at its `aasa`.
    static func warnings(for ruleSet: RuleSet, stateDirectory: String) -> [Diagnostic] {
        let uses = ruleSet.associatedDomains
        guard !uses.isEmpty else { return [] }
        let (entries, _) = cachedEntries(stateDirectory: stateDirectory)
        let applied = ruleSet.applying(AssociationRefresh.files(Array(entries.values)))
        return uses.compactMap { use in
            guard let reason = applied.unavailableReason(of: use.rule) else { return nil }
            return Diagnostic(
                file: use.location.file, line: use.location.line, column: use.location.column, severity: .warning,
                message: "rule '\(use.rule)': \(reason)")
        }
    }

    /// One `doctor` check per live domain: its cache state.
    /// - Parameters:
    ///   - ruleSet: the loaded rules.
    ///   - stateDirectory: where the cache is.
    /// - Returns: the checks, sorted by domain.
    static func doctorChecks(for ruleSet: RuleSet, stateDirectory: String) -> [DoctorCheck] {
        guard !ruleSet.liveDomains.isEmpty else { return [] }
        let (entries, problem) = cachedEntries(stateDirectory: stateDirectory)
        let applied = ruleSet.applying(AssociationRefresh.files(Array(entries.values)))
        return ruleSet.liveDomains.map { domain in
            let name = "aasa \(domain)"
            let rules = ruleSet.associatedDomains.filter { $0.domain == domain }.map(\.rule)
            let reasons = rules.compactMap { applied.unavailableReason(of: $0) }
            guard let entry = entries[domain], entry.body != nil else {
                let detail =
                    problem.map { "cache unreadable: \($0)" }
                    ?? entries[domain]?.lastError.map { "never fetched; last attempt failed: \($0)" }
                    ?? "never fetched: rules \(rules.joined(separator: ", ")) match nothing until it is"
                return DoctorCheck(
                    name: name, status: .warning, detail: detail,
                    fix: "start the router (it fetches at once) or run `tagrouter aasa refresh \(domain)`")
            }
            var detail = "cached, fetched \(entry.fetchedAt.map(Timestamp.rfc3339) ?? "?")"
            detail += " (\(entry.body?.count ?? 0) bytes)"
            if let error = entry.lastError { detail += "; the last refresh failed: \(error)" }
            if let reason = reasons.first { detail += "; \(reason)" }
            let healthy = entry.lastError == nil && reasons.isEmpty
            return DoctorCheck(
                name: name, status: healthy ? .ok : .warning, detail: detail,
                fix: healthy ? nil : "run `tagrouter aasa show \(domain)` for details")
        }
    }
}
