public import Foundation

/// An apple-app-site-association file fetched from its domain (docs/rules.md, "Live association files"): the
/// bytes as served and when they were fetched.
public struct AssociationFile: Sendable, Hashable {
    /// The body as served (at most 128 KB: the fetcher refuses more).
    public var data: Data
    /// When this copy was fetched (or last confirmed unchanged by a conditional request).
    public var fetchedAt: Date

    /// Creates a file.
    /// - Parameters:
    ///   - data: the body as served.
    ///   - fetchedAt: when it was fetched.
    public init(data: Data, fetchedAt: Date) {
        self.data = data
        self.fetchedAt = fetchedAt
    }
}
