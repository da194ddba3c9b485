import BundleFormat
public import FleetBundle

/// A bundle source given on the command line (`run --bundle-from`), checked as it is parsed.
public struct BundleURL: Sendable, Hashable, CustomStringConvertible {
    /// The source.
    public var source: BundleSource

    /// Parses a source.
    /// - Parameter text: the URL as given.
    /// - Returns: the source.
    /// - Throws: ``CommandFailure`` saying why the URL is not a bundle source.
    public static func parse(_ text: String) throws -> BundleURL {
        do {
            return BundleURL(source: try BundleSource(text))
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// The URL.
    public var description: String { source.description }
}
