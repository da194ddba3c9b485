public import BundleFormat
import Crypto
public import Foundation

/// A bundle: a rules folder's files with their manifest, signed (docs/fleet.md, "The bundle file"). The file's
/// layout is `BundleLayout`'s; this adds what needs swift-crypto: the Ed25519 signature and every file's SHA-256.
public struct SignedBundle: Sendable {
    /// One file of the bundle.
    public struct Entry: Sendable, Hashable {
        /// Its name.
        public var path: String
        /// Its content.
        public var content: Data

        /// Creates an entry.
        /// - Parameters:
        ///   - path: its name.
        ///   - content: its content.
        public init(path: String, content: Data) {
            self.path = path
            self.content = content
        }
    }

    /// The manifest.
    public let manifest: BundleManifest
    /// The files, in the manifest's order.
    public let entries: [Entry]
    /// The key that signed it.
    public let signer: BundleKeyID
    /// The SHA-256 of the whole bundle file, lower-case hex: the bundle's identity in logs and status documents.
    public let digest: String
    /// The bundle file's bytes.
    public let data: Data

    /// The bundle's version.
    public var version: Int { manifest.version }

    /// Packs and signs files into a bundle.
    /// - Parameters:
    ///   - entries: the files (sorted by name into the bundle).
    ///   - version: the bundle's version, 1 or more.
    ///   - created: when it is packed.
    ///   - key: the signing key.
    /// - Throws: ``BundleError`` when a name is not allowed, or a limit is passed.
    public init(
        packing entries: [Entry], version: Int, created: Date, key: BundleSigningKey
    ) throws(BundleError) {
        guard version >= 1, version <= BundleManifest.maximumVersion else {
            throw BundleError(.manifest, "version \(version): a bundle's version is from 1 to 2^53")
        }
        let sorted = entries.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        var files: [BundleManifest.File] = []
        for entry in sorted {
            if let problem = BundlePath.problem(entry.path) { throw BundleError(.path, problem) }
            if files.last?.path == entry.path { throw BundleError(.path, "'\(entry.path)' is given twice") }
            guard entry.content.count <= BundleManifest.maximumFileSize else {
                throw BundleError(.tooLarge, "\(entry.path): \(entry.content.count) bytes, more than 16 MiB")
            }
            files.append(
                BundleManifest.File(
                    path: entry.path, size: entry.content.count,
                    sha256: BundleHex.encode(SHA256.hash(data: entry.content))))
        }
        guard files.count <= BundleManifest.maximumFileCount else {
            throw BundleError(.tooLarge, "\(files.count) files, more than \(BundleManifest.maximumFileCount)")
        }
        guard files.reduce(0, { $0 + $1.size }) <= BundleManifest.maximumTotalSize else {
            throw BundleError(.tooLarge, "the files add up to more than 64 MiB")
        }
        // Whole seconds, as the manifest writes the time.
        let manifest = BundleManifest(
            version: version, created: Date(timeIntervalSince1970: created.timeIntervalSince1970.rounded(.down)),
            files: files)
        let json = manifest.json
        var data = Data(BundleLayout.header(signer: key.publicKey.id, manifestLength: json.count))
        data.append(json)
        let signature: Data
        do {
            signature = try key.key.signature(for: data)
        } catch {
            throw BundleError(.key, "cannot sign: \(error)")
        }
        data.append(signature)
        for entry in sorted { data.append(entry.content) }
        self.manifest = manifest
        self.entries = sorted
        self.signer = key.publicKey.id
        self.digest = BundleHex.encode(SHA256.hash(data: data))
        self.data = data
    }

    /// Reads a bundle file and verifies it: its layout, its signature with one of the trusted keys, then every
    /// file's size and SHA-256. Nothing is trusted before the signature verifies but the sizes that bound reading.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - name: how errors name the file (its path or URL).
    ///   - trustedKeys: the public keys the host trusts.
    /// - Throws: ``BundleError``: one sentence naming `name`, the byte offset or the file inside, and the problem.
    public init(verifying data: Data, name: String, trustedKeys: [BundlePublicKey]) throws(BundleError) {
        let bytes = [UInt8](data)
        func fail(_ code: BundleError.Code, _ message: String) -> BundleError {
            BundleError(code, "\(name): \(message)")
        }
        let layout = try BundleLayout(reading: bytes, name: name)
        let signer = layout.signer
        guard let key = trustedKeys.first(where: { $0.id == signer }) else {
            throw fail(
                .untrustedKey,
                "signed by key \(signer), which this host does not trust (it trusts \(Self.list(trustedKeys)))")
        }
        guard key.isValidSignature(bytes[layout.signature], for: bytes[layout.signed]) else {
            throw fail(
                .signature,
                "the signature (byte \(layout.signature.lowerBound)) does not verify with key \(signer): the bundle was altered after signing"
            )
        }
        let manifest = try BundleManifest.parse(
            Data(bytes[layout.manifest]),
            where: "\(name): manifest (bytes \(layout.manifest.lowerBound)..<\(layout.manifest.upperBound))")
        let ranges = try layout.contents(of: manifest, count: bytes.count, name: name)
        var entries: [Entry] = []
        for (file, range) in zip(manifest.files, ranges) {
            let content = Data(bytes[range])
            guard BundleHex.encode(SHA256.hash(data: content)) == file.sha256 else {
                throw fail(
                    .digest,
                    "\(file.path) (bytes \(range.lowerBound)..<\(range.upperBound)) does not have the SHA-256 its manifest gives"
                )
            }
            entries.append(Entry(path: file.path, content: content))
        }
        self.manifest = manifest
        self.entries = entries
        self.signer = signer
        self.digest = BundleHex.encode(SHA256.hash(data: data))
        self.data = data
    }

    /// The SHA-256 of a file's bytes, lower-case hex: what ``digest`` is once the file verifies.
    /// - Parameter data: the bytes.
    public static func digest(of data: Data) -> String {
        BundleHex.encode(SHA256.hash(data: data))
    }

    /// The first 12 hex digits of ``digest``, for short reports.
    public var shortDigest: String { String(digest.prefix(12)) }

    private static func list(_ keys: [BundlePublicKey]) -> String {
        keys.isEmpty ? "no key" : keys.map { "\($0.id)" }.joined(separator: ", ")
    }
}
