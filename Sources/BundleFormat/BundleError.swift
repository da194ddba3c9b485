/// The one error type of bundles (`BundleFormat` and `FleetBundle`): a bundle, a key or a bundle source that cannot be used. Its description is
/// one sentence naming the file (and the byte offset or the file inside the bundle) and what is wrong
/// (docs/fleet.md, "What happens when").
public struct BundleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is: the reason a refused bundle is reported with.
    public enum Code: String, Sendable, Hashable {
        /// The file is not a bundle, or not one of this format version.
        case format
        /// The file ends before what its header or manifest announces.
        case truncated
        /// A size is beyond a limit (the manifest, a file, the number of files, the whole bundle).
        case tooLarge = "too-large"
        /// The manifest is not what the format says (JSON, fields, values).
        case manifest
        /// A path in the bundle or a folder entry is not a plain rules file name (`..`, `/`, a symlink…).
        case path
        /// Signed by a key the host does not trust.
        case untrustedKey = "untrusted-key"
        /// The signature does not verify with the key it names: altered after signing.
        case signature
        /// A file's content differs from the SHA-256 its manifest gives.
        case digest
        /// A key file cannot be read or is not a key of the right kind.
        case key
        /// A file or folder cannot be read or written.
        case io
        /// A bundle source cannot be reached or answered something unusable.
        case source
    }

    /// The kind of problem.
    public var code: Code
    /// The full sentence.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of problem.
    ///   - message: one sentence naming what failed and where.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
