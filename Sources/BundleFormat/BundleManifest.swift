public import Foundation

/// What a bundle holds (docs/fleet.md, "The bundle file"): the format version, the bundle's version, when it was
/// made, and each file's name, size and SHA-256. It is JSON in the bundle file, covered by the signature.
public struct BundleManifest: Sendable, Hashable {
    /// The only format version this release reads and writes.
    public static let formatVersion = 1
    /// The most files a bundle may hold.
    public static let maximumFileCount = 1000
    /// The largest file a bundle may hold: the rules loader's own limit.
    public static let maximumFileSize = 16 << 20
    /// The most bytes of files a bundle may hold in all.
    public static let maximumTotalSize = 64 << 20
    /// The largest version number (JSON numbers stay exact up to 2^53).
    public static let maximumVersion = 1 << 53

    /// One file of the bundle.
    public struct File: Sendable, Hashable {
        /// Its name in the rules folder (a plain name: ``BundlePath``).
        public var path: String
        /// Its size in bytes.
        public var size: Int
        /// The SHA-256 of its content, lower-case hex.
        public var sha256: String

        /// Creates an entry.
        /// - Parameters:
        ///   - path: the file's name.
        ///   - size: its size.
        ///   - sha256: its SHA-256, lower-case hex.
        public init(path: String, size: Int, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The bundle's version: a host takes only a bundle newer than the one it runs.
    public var version: Int
    /// When the bundle was packed.
    public var created: Date
    /// The files, in the order their contents follow the signature.
    public var files: [File]

    /// Creates a manifest.
    /// - Parameters:
    ///   - version: the bundle's version, 1 or more.
    ///   - created: when it was packed.
    ///   - files: the files.
    public init(version: Int, created: Date, files: [File]) {
        self.version = version
        self.created = created
        self.files = files
    }

    /// The manifest as the bundle file writes it: JSON with sorted keys, no spaces, the time in RFC 3339 UTC to
    /// the second. The same manifest always gives the same bytes.
    public var json: Data {
        var text = "{\"created\":\"\(Self.timeText(created))\",\"files\":["
        text += files.map { "{\"path\":\"\($0.path)\",\"sha256\":\"\($0.sha256)\",\"size\":\($0.size)}" }
            .joined(separator: ",")
        text += "],\"format\":\(Self.formatVersion),\"version\":\(version)}"
        return Data(text.utf8)
    }

    /// RFC 3339 in UTC, to the second.
    /// - Parameter date: the time.
    /// - Returns: like `2026-11-29T10:00:00Z`.
    public static func timeText(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Parses and validates a manifest, reporting the first problem with its JSON path.
    /// - Parameters:
    ///   - data: the manifest's bytes.
    ///   - place: how errors name the manifest (`FILE: manifest (bytes 20..<300)`).
    /// - Returns: the manifest.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/manifest``, ``BundleError/Code/format``,
    ///   ``BundleError/Code/path`` or ``BundleError/Code/tooLarge``.
    public static func parse(_ data: Data, where place: String) throws(BundleError) -> BundleManifest {
        func fail(_ message: String, _ code: BundleError.Code = .manifest) -> BundleError {
            BundleError(code, "\(place): \(message)")
        }
        let raw: RawManifest
        do {
            raw = try JSONDecoder().decode(RawManifest.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) where context.codingPath.isEmpty {
            throw fail("not a JSON object")
        } catch let DecodingError.typeMismatch(type, context) {
            throw fail(
                "\(path(context.codingPath)): not \(type == String.self ? "a string" : type == Int.self ? "an integer" : "\(type)")"
            )
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw fail("\(path(context.codingPath)): \(context.debugDescription)")
        } catch DecodingError.dataCorrupted {
            throw fail("not JSON")
        } catch {
            throw fail("not a JSON object (\(error))")
        }
        guard let format = raw.format else { throw fail("format: missing") }
        guard format == formatVersion else {
            throw fail("format \(format): this release reads format \(formatVersion) only", .format)
        }
        guard let version = raw.version, version >= 1, version <= maximumVersion else {
            throw fail("version: missing or not an integer from 1 to 2^53")
        }
        guard let createdText = raw.created else { throw fail("created: missing") }
        guard let created = try? Date(createdText, strategy: .iso8601) else {
            throw fail("created: '\(createdText.prefix(40))' is not an RFC 3339 time like 2026-11-29T10:00:00Z")
        }
        guard let entries = raw.files else { throw fail("files: missing") }
        guard entries.count <= maximumFileCount else {
            throw fail("files: \(entries.count) files, more than \(maximumFileCount)", .tooLarge)
        }
        var files: [File] = []
        var seen = Set<String>()
        var total = 0
        for (index, entry) in entries.enumerated() {
            let at = "files[\(index)]"
            guard let path = entry.path else { throw fail("\(at).path: missing") }
            if let problem = BundlePath.problem(path) { throw fail("\(at).path: \(problem)", .path) }
            guard seen.insert(path).inserted else { throw fail("\(at).path: '\(path)' is listed twice", .path) }
            guard let size = entry.size, size >= 0 else { throw fail("\(at).size: missing or negative") }
            guard size <= maximumFileSize else { throw fail("\(at).size: \(size) bytes, more than 16 MiB", .tooLarge) }
            total += size
            guard total <= maximumTotalSize else {
                throw fail("\(at).size: the files add up to more than 64 MiB", .tooLarge)
            }
            guard let digest = entry.sha256, digest.utf8.count == 64,
                digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else { throw fail("\(at).sha256: missing or not 64 lower-case hex digits") }
            files.append(File(path: path, size: size, sha256: digest))
        }
        return BundleManifest(version: version, created: created, files: files)
    }

    /// A JSON path as errors write it: `files[2].size`.
    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// The manifest as decoded, before it is validated: every field optional, so that a missing one is reported
    /// by name.
    private struct RawManifest: Decodable {
        var format: Int?
        var version: Int?
        var created: String?
        var files: [RawFile]?
    }

    private struct RawFile: Decodable {
        var path: String?
        var size: Int?
        var sha256: String?
    }
}

/// What a file in a bundle may be called: a plain rules file name (docs/fleet.md, "The bundle file").
public enum BundlePath {
    /// Why a name is not allowed, or nil when it is: 1 to 128 bytes of `A-Z a-z 0-9 . _ -`, not starting with a
    /// dot, ending in `.yaml` or `.yml`. So no `/`, no `..`, no absolute path, no hidden file.
    /// - Parameter path: the name.
    public static func problem(_ path: String) -> String? {
        let printable = path.unicodeScalars.prefix(64).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" }
        let shown = "'\(String(printable))'"
        if path.isEmpty { return "an empty name" }
        if path.hasPrefix("/") { return "\(shown) is an absolute path; a bundle holds plain file names" }
        if path.split(separator: "/").contains("..") { return "\(shown) leads out of the folder ('..')" }
        if path.contains("/") { return "\(shown) is in a subfolder; a bundle holds the folder's own files only" }
        if path.utf8.count > 128 { return "\(shown) is longer than 128 bytes" }
        if path.hasPrefix(".") { return "\(shown) is a hidden file" }
        let allowed = path.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        if !allowed { return "\(shown) has a character other than A-Z a-z 0-9 . _ -" }
        if !(path.hasSuffix(".yaml") || path.hasSuffix(".yml")) { return "\(shown) is not a .yaml or .yml file" }
        return nil
    }
}
