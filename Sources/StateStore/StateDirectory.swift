public import Foundation

/// Where TagRouter keeps its state database (`tagrouter.sqlite`: tap history and the webhook outbox).
public enum StateDirectory {
    /// The default state directory: `/var/lib/tagrouter` for root, else `$XDG_STATE_HOME/tagrouter`, else
    /// `~/.local/state/tagrouter`.
    /// - Parameters:
    ///   - environment: the process environment (for `XDG_STATE_HOME` and `HOME`).
    ///   - isRoot: whether the process runs as root.
    /// - Returns: the directory path.
    public static func defaultPath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isRoot: Bool = geteuid() == 0
    ) -> String {
        if isRoot { return "/var/lib/tagrouter" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/tagrouter" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/tagrouter"
    }

    /// The database file inside a state directory.
    /// - Parameter directory: the state directory.
    /// - Returns: `<directory>/tagrouter.sqlite`.
    public static func databasePath(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + "tagrouter.sqlite" : directory + "/tagrouter.sqlite"
    }
}
