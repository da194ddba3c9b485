import BundleFormat
import Crypto
import FleetBundle
import Foundation
import TestSupport
import Testing

/// The bundle file (docs/fleet.md, "The bundle file"): packed, verified, and refused when altered, cut, signed by
/// another key or naming paths a bundle cannot hold.
@Suite struct SignedBundleTests {
    static let key = BundleSigningKey()
    static let created = Date(timeIntervalSince1970: 1_795_000_000)
    static let entries = [
        SignedBundle.Entry(path: "tags.yaml", content: Data("version: 1\ntags: []\n".utf8)),
        SignedBundle.Entry(path: "10-door.yaml", content: Data("version: 1\nrules: []\n".utf8)),
    ]

    static func packed() throws -> SignedBundle {
        try SignedBundle(packing: entries, version: 7, created: created, key: key)
    }

    @Test func packedBundleVerifiesWithItsKey() throws {
        let bundle = try Self.packed()
        let opened = try SignedBundle(verifying: bundle.data, name: "b.trb", trustedKeys: [Self.key.publicKey])
        #expect(opened.version == 7)
        #expect(opened.manifest.created == Self.created)
        #expect(opened.entries.map(\.path) == ["10-door.yaml", "tags.yaml"])
        #expect(opened.entries[1].content == Self.entries[0].content)
        #expect(opened.signer == Self.key.publicKey.id)
        #expect(opened.digest == bundle.digest)
        #expect(opened.digest.count == 64)
    }

    @Test func manifestIsTheDocumentedJSON() throws {
        let bundle = try Self.packed()
        let json = String(decoding: bundle.manifest.json, as: UTF8.self)
        let door = SHA256.hash(data: Self.entries[1].content).map { String(format: "%02x", $0) }.joined()
        #expect(json.hasPrefix("{\"created\":\"2026-11-18T"))
        #expect(json.contains("{\"path\":\"10-door.yaml\",\"sha256\":\"\(door)\",\"size\":21}"))
        #expect(json.hasSuffix("],\"format\":1,\"version\":7}"))
        // Header: magic, key id, manifest length; the manifest follows.
        let bytes = [UInt8](bundle.data)
        #expect(Array(bytes[0..<8]) == Array("TRBUNDLE".utf8))
        #expect(Array(bytes[8..<16]) == Self.key.publicKey.id.bytes)
        #expect(bytes[16..<20].reduce(0) { $0 << 8 | Int($1) } == json.utf8.count)
        #expect(Array(bytes[20..<(20 + json.utf8.count)]) == Array(json.utf8))
    }

    @Test func anotherKeyIsRefusedByName() throws {
        let bundle = try Self.packed()
        let other = BundleSigningKey().publicKey
        let error = #expect(throws: BundleError.self) {
            try SignedBundle(verifying: bundle.data, name: "b.trb", trustedKeys: [other])
        }
        #expect(error?.code == .untrustedKey)
        #expect(
            error?.message
                == "b.trb: signed by key \(Self.key.publicKey.id), which this host does not trust (it trusts \(other.id))"
        )
    }

    /// A byte changed anywhere is refused: in the header or manifest by the signature, in a file by its SHA-256.
    @Test(arguments: [
        (9, BundleError.Code.untrustedKey), (16, .tooLarge), (30, .signature), (-70, .signature), (-3, .digest),
    ])
    func alteredByteIsRefused(offset: Int, code: BundleError.Code) throws {
        var bytes = [UInt8](try Self.packed().data)
        let index = offset < 0 ? bytes.count + offset : offset
        bytes[index] ^= 0x01
        let error = #expect(throws: BundleError.self) {
            try SignedBundle(verifying: Data(bytes), name: "b.trb", trustedKeys: [Self.key.publicKey])
        }
        #expect(error?.code == code)
        #expect(error?.message.hasPrefix("b.trb: ") == true)
    }

    @Test func alteredFileNamesTheFileAndItsBytes() throws {
        let bundle = try Self.packed()
        var bytes = [UInt8](bundle.data)
        bytes[bytes.count - 1] ^= 0x20
        let error = #expect(throws: BundleError.self) {
            try SignedBundle(verifying: Data(bytes), name: "b.trb", trustedKeys: [Self.key.publicKey])
        }
        let start = bytes.count - Self.entries[0].content.count
        #expect(
            error?.message
                == "b.trb: tags.yaml (bytes \(start)..<\(bytes.count)) does not have the SHA-256 its manifest gives")
    }

    /// Cut anywhere, a bundle is refused with the offset where it ends.
    @Test func truncatedBundlesAreRefused() throws {
        let data = try Self.packed().data
        let manifestEnd = 20 + data[16..<20].reduce(0) { $0 << 8 | Int($1) }
        for length in [0, 5, 8, 19, 20, manifestEnd, manifestEnd + 63, manifestEnd + 64 + 3, data.count - 1] {
            let error = #expect(throws: BundleError.self, "cut at \(length)") {
                try SignedBundle(verifying: data.prefix(length), name: "b.trb", trustedKeys: [Self.key.publicKey])
            }
            if length < 8 {
                #expect(error?.code == .format)
            } else {
                #expect(error?.code == .truncated, "cut at \(length)")
                #expect(error?.message.hasPrefix("b.trb: byte \(length): the file ends") == true, "cut at \(length)")
            }
        }
    }

    /// Every alteration of a signed bundle is refused: 1,000 drawn from a seed, each XORing up to four bytes anywhere
    /// (header, manifest, signature, files) and cutting the file half the time. The bundle verifies exactly when no
    /// byte changed and nothing was cut. (The fuzz target `fuzz-bundle` reads the layout and the manifest without
    /// swift-crypto; the signature and the digests are checked here.)
    @Test func everyAlterationIsRefused() throws {
        let original = [UInt8](try Self.packed().data)
        var generator = SplitMix64(seed: 2026)
        var refused = 0
        for round in 0..<1000 {
            var bytes = original
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            }
            if Bool.random(using: &generator) {
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            }
            let unchanged = bytes == original
            do {
                _ = try SignedBundle(verifying: Data(bytes), name: "b.trb", trustedKeys: [Self.key.publicKey])
                #expect(unchanged, "round \(round): an altered bundle verified")
            } catch {
                refused += 1
                #expect(!unchanged, "round \(round): the original was refused: \(error.message)")
                #expect(error.message.hasPrefix("b.trb: ") && !error.message.contains("\n"), "\(error.message)")
            }
        }
        // Most rounds change something: the draw is not degenerate.
        #expect(refused > 800)
    }

    @Test func trailingBytesAreRefused() throws {
        let data = try Self.packed().data + Data([0])
        let error = #expect(throws: BundleError.self) {
            try SignedBundle(verifying: data, name: "b.trb", trustedKeys: [Self.key.publicKey])
        }
        #expect(error?.message == "b.trb: byte \(data.count - 1): 1 bytes after the last file")
    }

    /// A manifest that its signer got wrong is still refused, with the JSON path of the problem.
    @Test(arguments: [
        (
            #"{"created":"2026-11-29T10:00:00Z","files":[{"path":"../x.yaml","sha256":"\#(String(repeating: "0", count: 64))","size":0}],"format":1,"version":2}"#,
            "files[0].path: '../x.yaml' leads out of the folder ('..')"
        ),
        (
            #"{"created":"2026-11-29T10:00:00Z","files":[{"path":"/etc/x.yaml","sha256":"\#(String(repeating: "0", count: 64))","size":0}],"format":1,"version":2}"#,
            "files[0].path: '/etc/x.yaml' is an absolute path; a bundle holds plain file names"
        ),
        (
            #"{"created":"2026-11-29T10:00:00Z","files":[],"format":2,"version":2}"#,
            "format 2: this release reads format 1 only"
        ),
        (
            #"{"created":"2026-11-29T10:00:00Z","files":[],"format":1,"version":0}"#,
            "version: missing or not an integer from 1 to 2^53"
        ),
        (
            #"{"created":"yesterday","files":[],"format":1,"version":1}"#,
            "created: 'yesterday' is not an RFC 3339 time like 2026-11-29T10:00:00Z"
        ),
        (
            #"{"created":"2026-11-29T10:00:00Z","files":[{"path":"a.yaml","size":1}],"format":1,"version":1}"#,
            "files[0].sha256: missing or not 64 lower-case hex digits"
        ),
        (
            #"{"created":"2026-11-29T10:00:00Z","files":[{"path":"a.yaml","sha256":"\#(String(repeating: "0", count: 64))","size":99999999}],"format":1,"version":1}"#,
            "files[0].size: 99999999 bytes, more than 16 MiB"
        ),
        (#"["not", "an", "object"]"#, "not a JSON object"),
    ])
    func badManifestIsRefused(manifest: String, problem: String) throws {
        let data = Self.signed(manifest: Data(manifest.utf8))
        let error = #expect(throws: BundleError.self) {
            try SignedBundle(verifying: data, name: "b.trb", trustedKeys: [Self.key.publicKey])
        }
        #expect(error?.message == "b.trb: manifest (bytes 20..<\(20 + manifest.utf8.count)): \(problem)")
    }

    /// A bundle file with this manifest, signed by ``key``, and no file contents.
    static func signed(manifest: Data) -> Data {
        var data = Data("TRBUNDLE".utf8) + Data(key.publicKey.id.bytes)
        let count = UInt32(manifest.count)
        data += Data([UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
        data += manifest
        data += try! key.key.signature(for: data)
        return data
    }

    @Test(arguments: [
        ("10-door.yaml", nil), ("tags.yaml", nil), ("a_b-c.yml", nil),
        ("", "an empty name"),
        ("../etc.yaml", "'../etc.yaml' leads out of the folder ('..')"),
        ("/abs.yaml", "'/abs.yaml' is an absolute path; a bundle holds plain file names"),
        ("sub/x.yaml", "'sub/x.yaml' is in a subfolder; a bundle holds the folder's own files only"),
        (".hidden.yaml", "'.hidden.yaml' is a hidden file"),
        ("a b.yaml", "'a b.yaml' has a character other than A-Z a-z 0-9 . _ -"),
        ("notes.txt", "'notes.txt' is not a .yaml or .yml file"),
    ])
    func pathRules(path: String, problem: String?) {
        #expect(BundlePath.problem(path) == problem)
    }

    @Test func packingRefusesABadName() {
        let error = #expect(throws: BundleError.self) {
            try SignedBundle(
                packing: [.init(path: "../x.yaml", content: Data())], version: 1, created: Self.created, key: Self.key)
        }
        #expect(error?.code == .path)
    }
}
