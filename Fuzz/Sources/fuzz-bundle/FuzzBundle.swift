import FleetBundle
import Foundation
import FuzzSupport

/// The bundle parser (`SignedBundle(verifying:)`, docs/fleet.md, "The bundle file"), which reads files fetched from a
/// URL or an MQTT topic before anything else does. The first byte chooses the mode:
/// - even: the rest is a bundle file, verified with a fixed trusted key. Invariants: a refusal is a `BundleError`
///   whose sentence starts with the file's name; a bundle that verifies has one entry per manifest file, each with
///   the size and SHA-256 the manifest gives, was signed by the trusted key, and verifies again from its own bytes
///   to the same digest.
/// - odd: the rest is a list of (2-byte offset, 1-byte mask) edits XORed into a valid signed bundle, then the file is
///   cut to a length chosen by the last two bytes. Invariant: the bundle verifies exactly when no byte changed and
///   nothing was cut: every alteration of a signed bundle is refused.
@_cdecl("fuzz_bundle_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    // The key and the valid bundle are made once, before the first input: made lazily during one, what they keep
    // would count as that input's leak.
    _ = (signingKey, original)
    return runFuzzer(argc, argv, fuzz)
}

/// A fixed signing key (32 bytes of 0x01), so that the corpus's bundles are signed by the trusted key.
let signingKey = try! BundleSigningKey(
    text: BundleSigningKey.label + " " + Data(repeating: 1, count: 32).base64EncodedString(), file: "fuzz.key")
/// The trusted keys, made anew for each input: kept in a global, the public key's `Data` (made by swift-crypto's
/// `rawRepresentation`) was reported by LeakSanitizer as leaked at exit, though the global holds it.
var trusted: [BundlePublicKey] { [signingKey.publicKey] }

/// The valid bundle the odd mode alters: a rules file and a tags file.
let original: [UInt8] = Array(
    try! SignedBundle(
        packing: [
            .init(path: "10-door.yaml", content: Data("version: 1\nrules: []\n".utf8)),
            .init(path: "tags.yaml", content: Data("version: 1\ntags: []\n".utf8)),
        ], version: 7, created: Date(timeIntervalSince1970: 1_795_000_000), key: signingKey
    ).data)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        verifyWhole(input.rest())
    } else {
        alter(input.rest())
    }
    return 0
}

func verifyWhole(_ bytes: [UInt8]) {
    let file = Data(bytes)
    do {
        let bundle = try SignedBundle(verifying: file, name: "fuzz.trb", trustedKeys: trusted)
        check(bundle.signer == signingKey.publicKey.id, "signed by \(bundle.signer)")
        check(bundle.entries.count == bundle.manifest.files.count, "entries and manifest differ in number")
        for (entry, described) in zip(bundle.entries, bundle.manifest.files) {
            check(entry.path == described.path, "entry \(entry.path) is described as \(described.path)")
            check(entry.content.count == described.size, "\(entry.path): size differs from the manifest's")
            check(
                SignedBundle.digest(of: entry.content) == described.sha256,
                "\(entry.path): SHA-256 differs from the manifest's")
        }
        let again = try SignedBundle(verifying: bundle.data, name: "again.trb", trustedKeys: trusted)
        check(again.digest == bundle.digest && again.digest == SignedBundle.digest(of: file), "digest unstable")
    } catch {
        check(error.message.hasPrefix("fuzz.trb") || error.message.hasPrefix("again.trb"), "\(error.message)")
        check(!error.message.contains("\n"), "a refusal is one line: \(error.message)")
    }
}

func alter(_ edits: [UInt8]) {
    var bytes = original
    var index = 0
    while index + 3 <= edits.count - 2 {
        let offset = (Int(edits[index]) << 8 | Int(edits[index + 1])) % bytes.count
        bytes[offset] ^= edits[index + 2]
        index += 3
    }
    var length = bytes.count
    if edits.count >= 2 {
        let cut = Int(edits[edits.count - 2]) << 8 | Int(edits[edits.count - 1])
        // Values past the length leave it whole, so most inputs alter bytes only.
        if cut < bytes.count { length = cut }
    }
    let altered = Array(bytes.prefix(length))
    let verified = (try? SignedBundle(verifying: Data(altered), name: "fuzz.trb", trustedKeys: trusted)) != nil
    check(verified == (altered == original), "an altered bundle verified, or the original did not")
}
