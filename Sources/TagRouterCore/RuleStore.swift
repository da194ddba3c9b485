public import Logging
public import PeriodicWork
import Synchronization
public import TagRules

/// The rules in force, swapped whole on reload so a tap always sees one consistent rule set.
public final class RuleStore: Sendable {
    /// Where the rules come from now: the `--rules` sources, and the folder of the bundle in force when the host
    /// takes bundles (docs/fleet.md, "The local overlay").
    public var sources: [String] { current.withLock { $0.sources } }
    let environment: [String: String]
    let logger: Logger
    /// The rules with the live association files' components swapped in, and those files.
    /// The generation counts reloads, so a swap computed outside the lock never undoes a reload.
    private let current:
        Mutex<(ruleSet: RuleSet, associations: [String: AssociationFile], generation: Int, sources: [String])>
    /// Held while rules are loaded and swapped in, so that a reload and a bundle taken at the same time never undo
    /// each other (taps read ``current`` only, and never wait for it).
    private let loading = Mutex(())
    /// Signaled after every successful ``reload()``: the association refresher, with no live domain to keep,
    /// sleeps on it instead of ticking.
    public let reloaded = Wakeup()

    /// Creates the store with rules already loaded.
    /// - Parameters:
    ///   - sources: rule files and folders, in order, for reloads.
    ///   - environment: the environment for `${VAR}` expansion.
    ///   - initial: the rules loaded at start-up.
    ///   - logger: where reloads are logged.
    public init(sources: [String], environment: [String: String], initial: RuleSet, logger: Logger) {
        self.environment = environment
        self.logger = logger
        self.current = Mutex((initial.applying([:]), [:], 0, sources))
    }

    /// The rule set in force.
    public var ruleSet: RuleSet { current.withLock { $0.ruleSet } }

    /// Swaps in the live association files (docs/rules.md, "Live association files"): the rules take their
    /// components without the rules files being read again; a rule whose domain is missing matches nothing.
    /// - Parameter files: every fetched file by domain.
    public func install(associations files: [String: AssociationFile]) {
        // Compiled outside the lock, so a tap never waits for it; tried again if the rules were reloaded meanwhile.
        while true {
            let (rules, generation) = current.withLock { ($0.ruleSet, $0.generation) }
            let updated = rules.applying(files)
            let done = current.withLock { state in
                guard state.generation == generation else { return false }
                state = (updated, files, generation + 1, state.sources)
                return true
            }
            if done { return }
        }
    }

    /// Loads the rules again; invalid rules keep the previous set in force and log the diagnostics.
    /// - Returns: `true` when the new rules were taken.
    @discardableResult
    public func reload() -> Bool {
        loading.withLock { _ in
            let sources = self.sources
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
            take(ruleSet, sources: sources)
            logger.info(
                "rules.reloaded",
                metadata: ["rules.count": "\(result.ruleCount)", "rules.files": "\(result.fileCount)"])
            return true
        }
    }

    /// Loads new sources (a bundle's folder with the local overlay) and swaps them in whole if they load without
    /// error: the same swap as a reload, so a tap sees the old rules or the new, never a mix.
    /// - Parameter sources: the new sources.
    /// - Returns: the load result: its rule set is in force when it has one; else nothing changed.
    public func replace(sources: [String]) -> LoadResult {
        loading.withLock { _ in
            let result = RuleSet.load(sources: sources, environment: environment)
            if let ruleSet = result.ruleSet { take(ruleSet, sources: sources) }
            return result
        }
    }

    /// Swaps a loaded rule set in, with the live association files installed, and wakes what waits for a reload.
    private func take(_ ruleSet: RuleSet, sources: [String]) {
        let files = current.withLock { $0.associations }
        var updated = ruleSet.applying(files)
        let previous = current.withLock { state in
            // Files installed meanwhile are applied again, under the lock (rare: a reload during a refresh).
            if state.associations != files { updated = ruleSet.applying(state.associations) }
            defer { state = (updated, state.associations, state.generation + 1, sources) }
            return state.ruleSet.mqtt
        }
        if Self.brokerChanged(from: previous, to: ruleSet.mqtt) {
            logger.warning(
                "rules.reloaded: the mqtt: block changed; the router keeps its broker connection until it is restarted")
        }
        reloaded.signal()
    }

    /// Whether two `mqtt:` blocks differ in anything but where they are written.
    static func brokerChanged(from old: MQTTSettings?, to new: MQTTSettings?) -> Bool {
        guard var old, let new else { return (old == nil) != (new == nil) }
        old.location = new.location
        return old != new
    }
}
