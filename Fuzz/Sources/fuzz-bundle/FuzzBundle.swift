import BundleFormat
import Foundation
import FuzzSupport

/// The bundle file's parsers (docs/fleet.md, "The bundle file"), which read files fetched from a URL or an MQTT
/// topic before anything else does: `BundleLayout` and `BundleManifest.parse`, without swift-crypto (the signature
/// and the digests are swift-crypto's; that every alteration of a signed bundle is refused is a property test,
/// `SignedBundleTests`). The first byte chooses the mode:
/// - even: the rest is a bundle file. Invariants: a refusal is a `BundleError` of one line starting with the file's
///   name; a layout that reads names the header's key id and manifest length, and the file holds the manifest and
///   the signature. Its manifest is then parsed as if the signature verified, and its files placed: the ranges
///   follow one another from the signature's end with the manifest's sizes, the last one ending the file, and the
///   placing fails exactly when the sizes do not add up to the file (`truncated` when the file is shorter,
///   `format` when longer).
/// - odd: the rest is a manifest. Invariants: a refusal is one line starting with the place given; a manifest that
///   parses has unique allowed paths, sizes within the limits, 64 lower-case hex digits for each SHA-256, and
///   reads back from its own JSON as the same manifest, whose JSON is the same bytes.
@_cdecl("fuzz_bundle_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    if mode & 1 == 0 {
        readFile(input.rest())
    } else {
        if let manifest = parseManifest(input.rest(), where: "fuzz.json") { checkManifest(manifest) }
    }
    return 0
}

/// Checks that a refusal is one line that starts with `prefix`.
func checkRefusal(_ error: BundleError, _ prefix: String) {
    check(error.message.hasPrefix(prefix), "a refusal that does not start with '\(prefix)': \(error.message)")
    check(!error.message.contains("\n"), "a refusal of more than one line: \(error.message)")
}

func readFile(_ bytes: [UInt8]) {
    let layout: BundleLayout
    do {
        layout = try BundleLayout(reading: bytes, name: "fuzz.trb")
    } catch {
        checkRefusal(error, "fuzz.trb: ")
        return
    }
    check(Array(bytes.prefix(8)) == BundleLayout.magic, "a layout without the magic")
    check(layout.signer.bytes == Array(bytes[8..<16]), "the signer is not bytes 8..<16")
    check(layout.manifestLength == bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, "the manifest length differs")
    check((2...BundleLayout.maximumManifestSize).contains(layout.manifestLength), "a manifest length out of range")
    check(
        layout.manifest.lowerBound == BundleLayout.headerSize && layout.manifest.upperBound == layout.signed.upperBound
            && layout.signature.lowerBound == layout.signed.upperBound
            && layout.signature.count == BundleLayout.signatureSize && layout.signature.upperBound <= bytes.count,
        "the manifest and the signature are not where the header puts them")
    check(
        BundleLayout.header(signer: layout.signer, manifestLength: layout.manifestLength) == Array(bytes.prefix(20)),
        "the header does not write back to its bytes")
    let place = "fuzz.trb: manifest (bytes \(layout.manifest.lowerBound)..<\(layout.manifest.upperBound))"
    guard let manifest = parseManifest(Array(bytes[layout.manifest]), where: place) else { return }
    checkManifest(manifest)
    let total = manifest.files.reduce(layout.signature.upperBound) { $0 + $1.size }
    do {
        let ranges = try layout.contents(of: manifest, count: bytes.count, name: "fuzz.trb")
        check(total == bytes.count, "files placed though their sizes add up to \(total), not \(bytes.count)")
        var offset = layout.signature.upperBound
        for (range, file) in zip(ranges, manifest.files) {
            check(range.lowerBound == offset && range.count == file.size, "\(file.path) is not where it follows")
            offset = range.upperBound
        }
        check(ranges.count == manifest.files.count && offset == bytes.count, "the files do not end the bundle")
    } catch {
        checkRefusal(error, "fuzz.trb: ")
        check(total != bytes.count, "files refused though their sizes add up to the file: \(error.message)")
        check(
            error.code == (total > bytes.count ? .truncated : .format),
            "\(error.code) for files that add up to \(total) in \(bytes.count) bytes")
    }
}

func parseManifest(_ bytes: [UInt8], where place: String) -> BundleManifest? {
    do {
        return try BundleManifest.parse(Data(bytes), where: place)
    } catch {
        checkRefusal(error, place + ": ")
        return nil
    }
}

func checkManifest(_ manifest: BundleManifest) {
    check(manifest.version >= 1 && manifest.version <= BundleManifest.maximumVersion, "version \(manifest.version)")
    check(manifest.files.count <= BundleManifest.maximumFileCount, "\(manifest.files.count) files")
    check(Set(manifest.files.map(\.path)).count == manifest.files.count, "a path listed twice")
    var total = 0
    for file in manifest.files {
        check(BundlePath.problem(file.path) == nil, "a path that is not allowed: \(file.path)")
        check(file.size >= 0 && file.size <= BundleManifest.maximumFileSize, "\(file.path): size \(file.size)")
        total += file.size
        check(
            file.sha256.utf8.count == 64
                && file.sha256.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
            "\(file.path): SHA-256 '\(file.sha256)'")
    }
    check(total <= BundleManifest.maximumTotalSize, "files of \(total) bytes in all")
    let json = manifest.json
    do {
        let again = try BundleManifest.parse(json, where: "again")
        check(
            again == manifest,
            "the manifest reads back from its JSON as another: \(String(decoding: json, as: UTF8.self))")
        check(again.json == json, "the manifest's JSON is not a fixed point")
    } catch {
        check(false, "the manifest's own JSON is refused: \(error.message)")
    }
}
