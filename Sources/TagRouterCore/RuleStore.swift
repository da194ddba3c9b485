public import Logging
import Synchronization
public import TagRules

/// The rules in force, swapped whole on reload so a tap always sees one consistent rule set.
public final class RuleStore: Sendable {
    /// Where the rules come from.
    public let sources: [String]
    let environment: [String: String]
    let logger: Logger
    private let current: Mutex<RuleSet>

    /// Loads the rules for the first time.
    /// - Parameters:
    ///   - sources: rule files and folders, in order.
    ///   - environment: the environment for `${VAR}` expansion.
    ///   - logger: where reloads are logged.
    /// - Throws: `TagRulesError` with every diagnostic when the rules are invalid.
    public init(sources: [String], environment: [String: String], logger: Logger) throws {
        self.sources = sources
        self.environment = environment
        self.logger = logger
        self.current = Mutex(try RuleSet.load(sources: sources, environment: environment).get())
    }

    /// The rule set in force.
    public var ruleSet: RuleSet { current.withLock { $0 } }

    /// Loads the rules again; invalid rules keep the previous set in force and log the diagnostics.
    /// - Returns: `true` when the new rules were taken.
    @discardableResult
    public func reload() -> Bool {
        let result = RuleSet.load(sources: sources, environment: environment)
        for diagnostic in result.diagnostics {
            logger.log(
                level: diagnostic.severity == .error ? .error : .warning, "rules.diagnostic",
                metadata: ["diagnostic": "\(diagnostic.headline)"])
        }
        guard let ruleSet = result.ruleSet else {
            logger.error(
                "rules.reload_failed: the previous rules stay in force",
                metadata: ["rules.errors": "\(result.diagnostics.filter { $0.severity == .error }.count)"])
            return false
        }
        current.withLock { $0 = ruleSet }
        logger.info(
            "rules.reloaded", metadata: ["rules.count": "\(result.ruleCount)", "rules.files": "\(result.fileCount)"])
        return true
    }
}
