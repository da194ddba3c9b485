/// Where rules are read from when no source is given.
public enum DefaultRulesPath {
    /// `$TAGROUTER_RULES`; otherwise `/etc/tagrouter/rules` for root; otherwise
    /// `$XDG_CONFIG_HOME/tagrouter/rules`, or `~/.config/tagrouter/rules`.
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - isRoot: whether the process runs as root.
    /// - Returns: the path.
    public static func resolve(environment: [String: String], isRoot: Bool) -> String {
        if let path = environment["TAGROUTER_RULES"], !path.isEmpty { return path }
        if isRoot { return "/etc/tagrouter/rules" }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/tagrouter/rules" }
        return (environment["HOME"] ?? "~") + "/.config/tagrouter/rules"
    }
}
