import AASAPatterns
import Foundation
import Yams

extension FileParser {
    static let liveAASAKeys = ["domain", "appID"]

    /// Parses `aasa: { domain:, appID: }` (docs/rules.md, "Live association files"); nil (after diagnostics) if
    /// invalid. The rule's `domains` become the one domain; its components arrive with the fetched file.
    func parseLiveAASA(_ node: Node, context: String, mode: MatchSubject.Mode) -> AssociatedDomain? {
        guard let mapping = mapping(node, "'aasa'") else { return nil }
        let items = entries(mapping, allowed: Self.liveAASAKeys, context: "in 'aasa' \(context)")
        var domain: String?
        var appID: String?
        for item in items {
            guard let (value, display) = string(item.value, "'\(item.key)'") else { continue }
            if item.key == "appID" {
                appID = value
                continue
            }
            guard let pattern = parseDomain(value, display, item.value) else { continue }
            guard !pattern.isWildcard, pattern.port == nil else {
                error(
                    item.value,
                    "the domain of 'aasa' must be one host name, without '*.' or a port (got '\(display)')")
                continue
            }
            domain = pattern.host
        }
        guard let domain else {
            if mapping["domain"] == nil { error(node, "'aasa' needs a 'domain' \(context)") }
            return nil
        }
        return AssociatedDomain(
            domain: domain, appID: appID, rule: "", location: location(node), mode: mode, variables: variables)
    }

    /// The components a live association file gives one rule: the same code path as a local `aasa:` file.
    /// - Parameters:
    ///   - file: the fetched file.
    ///   - use: the rule's use of it.
    /// - Returns: the component objects, or why the file cannot be used (one sentence, no domain).
    static func liveComponents(_ file: AssociationFile, for use: AssociatedDomain) -> Result<
        [ComponentObject], AssociationProblem
    > {
        guard file.data.count <= AssociationProblem.maxSize else {
            return .failure(AssociationProblem(reason: "larger than 128 KB"))
        }
        let parser = FileParser(
            file: use.location.file, directory: "", text: "", environment: [:], knownNames: [:])
        parser.variables = use.variables
        var reason: String?
        let objects = parser.aasaComponents(
            file.data, appID: use.appID, mode: use.mode, variables: use.variables, location: use.location,
            blame: nil
        ) { reason = "not a valid AASA file: \($0)" }
        if let objects { return .success(objects) }
        let pattern = parser.diagnostics.first.map { "a pattern is invalid: \($0.message)" }
        return .failure(AssociationProblem(reason: reason ?? pattern ?? "not a valid AASA file"))
    }
}

/// Why a live association file cannot be used by a rule.
struct AssociationProblem: Error {
    /// The size limit of a live file: Apple's 128 KB.
    static let maxSize = 128 * 1024
    /// One sentence, without the domain.
    var reason: String
}
