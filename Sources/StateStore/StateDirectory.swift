import FileStatus
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

    /// Creates the state directory (`mkdir -p`, mode 0700 for what it creates) and tightens it to 0700 when it is
    /// wider: it holds deliveries with their secrets until they are sent.
    /// - Parameter directory: the state directory.
    /// - Throws: ``StateStoreError`` naming the component that cannot be created, or the directory that cannot be
    ///   tightened.
    public static func create(_ directory: String) throws {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw StateStoreError(
                    "state directory \(directory): cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        guard let status = FileStatus.of(directory) else {
            throw StateStoreError("state directory \(directory): \(String(cString: strerror(errno)))")
        }
        if status.permissions & 0o077 != 0 && status.owner == geteuid() && chmod(directory, 0o700) != 0 {
            throw StateStoreError(
                "state directory \(directory): cannot make it private (0700): \(String(cString: strerror(errno)))")
        }
    }
}
