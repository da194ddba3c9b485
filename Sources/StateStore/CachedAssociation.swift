public import Foundation

/// What the state database holds about one domain's association file (docs/rules.md, "Live association
/// files"): the last good copy with its validators, and the last failed attempt.
public struct CachedAssociation: Sendable, Hashable {
    /// The domain.
    public var domain: String
    /// The last good body, nil when no fetch has succeeded yet.
    public var body: Data?
    /// When the last good body was fetched, or last confirmed unchanged (HTTP 304).
    public var fetchedAt: Date?
    /// The `ETag` that came with it, for `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` that came with it, for `If-Modified-Since`.
    public var lastModified: String?
    /// When the domain was last tried, successfully or not.
    public var checkedAt: Date
    /// Why the last attempt failed, nil when it succeeded.
    public var lastError: String?

    /// Creates a cache entry.
    /// - Parameters:
    ///   - domain: the domain.
    ///   - body: the last good body.
    ///   - fetchedAt: when it was fetched or confirmed.
    ///   - etag: its `ETag`.
    ///   - lastModified: its `Last-Modified`.
    ///   - checkedAt: when the domain was last tried.
    ///   - lastError: why the last attempt failed.
    public init(
        domain: String, body: Data?, fetchedAt: Date?, etag: String?, lastModified: String?, checkedAt: Date,
        lastError: String?
    ) {
        self.domain = domain
        self.body = body
        self.fetchedAt = fetchedAt
        self.etag = etag
        self.lastModified = lastModified
        self.checkedAt = checkedAt
        self.lastError = lastError
    }
}
