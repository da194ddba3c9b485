public import BundleFormat
public import Crypto
public import Foundation

/// A bundle signing key: an Ed25519 private key, kept on the administrator's machine, never given to a router
/// (docs/fleet.md, "Keys").
///
/// Its file (`NAME.key`, mode 0600) is one line: `tagrouter-bundle-ed25519-private ` and the 32-byte raw key in
/// base64.
public struct BundleSigningKey: Sendable {
    /// The first word of a private key file.
    public static let label = "tagrouter-bundle-ed25519-private"
    /// The key.
    public let key: Curve25519.Signing.PrivateKey

    /// A new random key.
    public init() {
        key = Curve25519.Signing.PrivateKey()
    }

    /// Reads a key from its file's text.
    /// - Parameters:
    ///   - text: the file's text.
    ///   - file: the file's name, for errors.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/key`` when the text is not a private key.
    public init(text: String, file: String) throws(BundleError) {
        let raw = try BundleKeyText.decode(text, label: Self.label, file: file, kind: "private key")
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        } catch {
            throw BundleError(.key, "\(file): not an Ed25519 private key (\(error))")
        }
    }

    /// Reads a key file.
    /// - Parameter path: the file.
    /// - Throws: ``BundleError`` when the file cannot be read or is not a private key.
    public init(contentsOf path: String) throws(BundleError) {
        try self.init(text: try BundleKeyText.read(path), file: path)
    }

    /// The public key that verifies what this key signs.
    public var publicKey: BundlePublicKey { BundlePublicKey(key.publicKey) }

    /// The file's text: one line.
    public var fileText: String { "\(Self.label) \(key.rawRepresentation.base64EncodedString())\n" }
}

/// A public key a host trusts for bundles (`--bundle-key NAME.pub`; docs/fleet.md, "Keys").
///
/// Its file is one line: `tagrouter-bundle-ed25519-public ` and the 32-byte raw key in base64. Its ``id`` (the
/// first 8 bytes of the raw key's SHA-256, in hex) is written in every bundle it signs, so that a bundle signed by
/// another key is reported as such.
public struct BundlePublicKey: Sendable, Hashable {
    /// The first word of a public key file.
    public static let label = "tagrouter-bundle-ed25519-public"
    /// The raw key, 32 bytes.
    public let rawRepresentation: Data

    init(_ key: Curve25519.Signing.PublicKey) {
        rawRepresentation = key.rawRepresentation
    }

    /// Reads a key from its file's text.
    /// - Parameters:
    ///   - text: the file's text.
    ///   - file: the file's name, for errors.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/key`` when the text is not a public key (a private
    ///   key's file is named as such).
    public init(text: String, file: String) throws(BundleError) {
        if text.hasPrefix(BundleSigningKey.label) {
            throw BundleError(
                .key, "\(file): this is a private key; a router is given the public key (the .pub file) only")
        }
        let raw = try BundleKeyText.decode(text, label: Self.label, file: file, kind: "public key")
        do {
            rawRepresentation = try Curve25519.Signing.PublicKey(rawRepresentation: raw).rawRepresentation
        } catch {
            throw BundleError(.key, "\(file): not an Ed25519 public key (\(error))")
        }
    }

    /// Reads a key file.
    /// - Parameter path: the file.
    /// - Throws: ``BundleError`` when the file cannot be read or is not a public key.
    public init(contentsOf path: String) throws(BundleError) {
        try self.init(text: try BundleKeyText.read(path), file: path)
    }

    /// The key's identifier: the first 8 bytes of SHA-256 over the raw key.
    public var id: BundleKeyID { BundleKeyID(Array(SHA256.hash(data: rawRepresentation).prefix(8))) }

    /// Whether `signature` is this key's signature of `data`.
    /// - Parameters:
    ///   - signature: 64 bytes.
    ///   - data: what was signed.
    public func isValidSignature(_ signature: some DataProtocol, for data: some DataProtocol) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else { return false }
        return key.isValidSignature(signature, for: data)
    }

    /// The file's text: one line.
    public var fileText: String { "\(Self.label) \(rawRepresentation.base64EncodedString())\n" }
}

/// The one-line text of a key file.
enum BundleKeyText {
    /// The largest key file read.
    static let maximumSize = 4096

    static func read(_ path: String) throws(BundleError) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > maximumSize {
            throw BundleError(.key, "\(path): \(size) bytes, too large for a key file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BundleError(.io, "\(path): cannot read the key file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BundleError(.key, "\(path): not a key file (not UTF-8 text)")
        }
        return text
    }

    static func decode(_ text: String, label: String, file: String, kind: String) throws(BundleError) -> Data {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 2, words[0] == label else {
            throw BundleError(.key, "\(file): not a TagRouter bundle \(kind) (expected one line '\(label) BASE64')")
        }
        guard let raw = Data(base64Encoded: String(words[1])), raw.count == 32 else {
            throw BundleError(.key, "\(file): the \(kind) is not 32 bytes in base64")
        }
        return raw
    }
}
