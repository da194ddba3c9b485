/// The bundle file's layout (docs/fleet.md, "The bundle file"), read without cryptography: where the manifest, the
/// signature and each file's content lie. Every integer is big-endian:
///
/// | offset | size | what |
/// |---|---|---|
/// | 0 | 8 | `TRBUNDLE` |
/// | 8 | 8 | the signing key's ``BundleKeyID`` |
/// | 16 | 4 | the manifest's length M, 2 to 1 MiB |
/// | 20 | M | the manifest (``BundleManifest``), JSON |
/// | 20 + M | 64 | the Ed25519 signature of bytes 0 to 20 + M |
/// | 84 + M | … | each file's content, in the manifest's order, nothing after the last |
///
/// `FleetBundle`'s `SignedBundle` reads a file through this, checks the signature and the digests, and packs with
/// ``header(signer:manifestLength:)``. Apart from it so that the parsing of hostile files (and its fuzz target)
/// builds without swift-crypto.
public struct BundleLayout: Sendable, Hashable {
    /// The first 8 bytes of every bundle.
    public static let magic = Array("TRBUNDLE".utf8)
    /// The largest manifest.
    public static let maximumManifestSize = 1 << 20
    /// The largest bundle file: the most its manifest and files may take.
    public static let maximumSize = 84 + maximumManifestSize + BundleManifest.maximumTotalSize
    /// The header before the manifest: magic, key id, manifest length.
    public static let headerSize = 20
    /// An Ed25519 signature.
    public static let signatureSize = 64

    /// The key the file names as its signer (not yet checked).
    public let signer: BundleKeyID
    /// The manifest's length in bytes.
    public let manifestLength: Int

    /// The bytes the signature covers: the header and the manifest.
    public var signed: Range<Int> { 0..<(Self.headerSize + manifestLength) }
    /// The manifest's bytes.
    public var manifest: Range<Int> { Self.headerSize..<signed.upperBound }
    /// The signature's bytes.
    public var signature: Range<Int> { signed.upperBound..<(signed.upperBound + Self.signatureSize) }

    /// Reads a file's header: the magic, the signer, the manifest's length, and that the file holds the manifest
    /// and the signature.
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - name: how errors name the file.
    /// - Throws: ``BundleError`` (``BundleError/Code/tooLarge``, ``BundleError/Code/format`` or
    ///   ``BundleError/Code/truncated``), naming `name` and the byte offset.
    public init(reading bytes: [UInt8], name: String) throws(BundleError) {
        func fail(_ code: BundleError.Code, _ message: String) -> BundleError {
            BundleError(code, "\(name): \(message)")
        }
        guard bytes.count <= Self.maximumSize else {
            throw fail(.tooLarge, "\(bytes.count) bytes, more than a bundle may take (\(Self.maximumSize))")
        }
        guard bytes.count >= Self.magic.count, Array(bytes.prefix(Self.magic.count)) == Self.magic else {
            throw fail(.format, "byte 0: not a TagRouter bundle (it does not start with 'TRBUNDLE')")
        }
        guard bytes.count >= Self.headerSize else {
            throw fail(.truncated, "byte \(bytes.count): the file ends inside the 20-byte header")
        }
        let length = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        guard length >= 2, length <= Self.maximumManifestSize else {
            throw fail(.tooLarge, "byte 16: a manifest length of \(length) bytes (from 2 to 1 MiB)")
        }
        signer = BundleKeyID(Array(bytes[8..<16]))
        manifestLength = length
        guard bytes.count >= signature.upperBound else {
            throw fail(
                .truncated,
                "byte \(bytes.count): the file ends before the manifest and signature end (byte \(signature.upperBound))"
            )
        }
    }

    /// Where each file of a manifest lies: one range after another from the end of the signature, the last one
    /// ending the file.
    /// - Parameters:
    ///   - manifest: the manifest the file holds.
    ///   - count: the file's size in bytes.
    ///   - name: how errors name the file.
    /// - Returns: the ranges, in the manifest's order.
    /// - Throws: ``BundleError``: ``BundleError/Code/truncated`` naming the file the bundle ends inside, or
    ///   ``BundleError/Code/format`` for bytes after the last file.
    public func contents(of manifest: BundleManifest, count: Int, name: String) throws(BundleError) -> [Range<Int>] {
        var offset = signature.upperBound
        var ranges: [Range<Int>] = []
        for file in manifest.files {
            guard count >= offset + file.size else {
                throw BundleError(
                    .truncated,
                    "\(name): byte \(count): the file ends inside \(file.path) (bytes \(offset)..<\(offset + file.size))"
                )
            }
            ranges.append(offset..<(offset + file.size))
            offset += file.size
        }
        guard offset == count else {
            throw BundleError(.format, "\(name): byte \(offset): \(count - offset) bytes after the last file")
        }
        return ranges
    }

    /// The header of a bundle signed by `signer` whose manifest is `manifestLength` bytes.
    /// - Parameters:
    ///   - signer: the signing key's id.
    ///   - manifestLength: the manifest's length.
    /// - Returns: the 20 bytes.
    public static func header(signer: BundleKeyID, manifestLength: Int) -> [UInt8] {
        let length = UInt32(manifestLength)
        return magic + signer.bytes + [
            UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
        ]
    }
}

/// A key's 8-byte identifier, written in hex.
public struct BundleKeyID: Sendable, Hashable, CustomStringConvertible {
    /// The 8 bytes.
    public let bytes: [UInt8]

    /// Creates an identifier.
    /// - Parameter bytes: 8 bytes.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Lower-case hex, 16 digits.
    public var description: String { BundleHex.encode(bytes) }
}

/// Lower-case hex.
package enum BundleHex {
    /// The bytes as lower-case hex, two digits each.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
