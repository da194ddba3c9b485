import Foundation
import StateStore
import TagActions
import TagRules

/// Where commands look when no option says: the rules path and state directory for this user (root or not) and
/// environment (`TAGROUTER_RULES`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`); docs/cli.md, "Common options".
public enum HostDefaults {
    /// The process environment.
    public static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Whether the process runs as root.
    public static var isRoot: Bool { geteuid() == 0 }

    /// The rules sources given, or the configured default when none were.
    /// - Parameter given: `--rules` and positional sources.
    /// - Returns: the sources to load.
    public static func rulesSources(_ given: [String]) -> [String] {
        given.isEmpty ? [DefaultRulesPath.resolve(environment: environment, isRoot: isRoot)] : given
    }

    /// The state directory given, or the default one.
    /// - Parameter given: `--state-dir`.
    /// - Returns: the directory.
    public static func stateDirectory(_ given: String?) -> String {
        given ?? StateDirectory.defaultPath(environment: environment, isRoot: isRoot)
    }
}
