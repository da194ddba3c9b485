/// The version of TagRouter, as sent in `User-Agent` and printed by `tagrouter --version`.
public enum Version {
    /// The release version string.
    public static let current = "0.1.0"
}
