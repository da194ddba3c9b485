/// The version of TagRouter, as sent in `User-Agent` and printed by `tagrouter --version`.
public enum Version {
    /// The release version string.
    public static let current = "0.1.0"

    /// The git commit the binary was built from (`-modified` when the tree had uncommitted changes; `unknown`
    /// outside a git checkout), recorded at build time by the BuildCommit plugin.
    public static let commit = BuildCommit.id

    /// What `tagrouter --version` prints: `0.1.0 (commit 0123456789ab)`.
    public static let description = "\(current) (commit \(commit))"
}
