import FuzzSupport
import NFCTag

/// The MAD parser and the access-bits decoder on arbitrary bytes. Invariants: a MAD parses only when its CRC
/// matches, re-encodes to the very bytes it came from, and lists NDEF sectors inside its range; access bits
/// decode only when their inverted copies agree, and re-encode to the same three bytes; any four conditions
/// encode to bits that decode back to them.
@_cdecl("fuzz_mad_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for version in [MAD.Version.mad1, .mad2] {
        let prefix = Array(bytes.prefix(version.byteCount))
        if let mad = MAD(bytes, version: version) {
            check(prefix.count == version.byteCount, "a \(version) MAD from \(prefix.count) bytes")
            check(MAD.crc(prefix.dropFirst()) == prefix[0], "a \(version) MAD with a wrong CRC parsed")
            check(mad.encoded == prefix, "\(version) \(prefix) re-encodes as \(mad.encoded)")
            check(mad.aids.count == version.sectorCount, "\(mad.aids.count) AIDs in a \(version)")
            let range = version.firstSector..<(version.firstSector + version.sectorCount)
            check(mad.ndefSectors.allSatisfy(range.contains), "NDEF sectors \(mad.ndefSectors) outside \(range)")
        } else if prefix.count == version.byteCount {
            check(MAD.crc(prefix.dropFirst()) != prefix[0], "a \(version) MAD with a matching CRC was refused")
        }
    }
    let accessBytes = Array(bytes.prefix(3))
    if let bits = ClassicAccessBits(accessBytes) {
        check(bits.encoded == accessBytes, "access bits \(accessBytes) re-encode as \(bits.encoded)")
        check(bits.conditions.count == 4 && bits.conditions.allSatisfy { $0 < 8 }, "conditions \(bits.conditions)")
    }
    if bytes.count >= 4 {
        let conditions = bytes.prefix(4).map { $0 & 0b111 }
        let encoded = ClassicAccessBits(conditions: conditions).encoded
        check(ClassicAccessBits(encoded)?.conditions == conditions, "conditions \(conditions) do not round-trip")
    }
    return 0
}
