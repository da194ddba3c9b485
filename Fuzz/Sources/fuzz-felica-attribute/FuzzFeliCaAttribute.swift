import FuzzSupport
import NFCTag

/// The Type 3 attribute block parser. Invariants: an error is `malformedCapabilityContainer` at a byte inside the
/// block (or its length when it is not 16 bytes); a parsed block has a verified checksum, re-encodes to exactly
/// its bytes (the 4 reserved bytes zero) or differs only there, has version 1.x, Nbr > 0, WriteF 00 (or 0F with Ln 0), RWFlag 00/01
/// and Ln within Nmaxb × 16.
@_cdecl("fuzz_felica_attribute_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let block = try Type3AttributeBlock(bytes[...])
        check(bytes.count == 16, "accepted \(bytes.count) bytes")
        let sum = bytes[0..<14].reduce(0) { $0 + Int($1) }
        check(sum == Int(bytes[14]) << 8 | Int(bytes[15]), "accepted a wrong checksum")
        check(
            block.version >> 4 == 1 && block.maxReadBlocks > 0, "version \(block.version), Nbr \(block.maxReadBlocks)")
        check(
            (block.writeFlag == 0 || (block.writeFlag == 0x0F && block.length == 0)) && block.rwFlag <= 1,
            "WriteF \(block.writeFlag) with Ln \(block.length), RWFlag \(block.rwFlag)")
        check(block.length <= block.capacity, "Ln \(block.length) over \(block.capacity)")
        if bytes[5..<9].allSatisfy({ $0 == 0 }) {
            check(block.bytes == bytes, "re-encoded \(block.bytes) from \(bytes)")
        }
    } catch {
        let offset = error.offset ?? -1
        check(error.code == .malformedCapabilityContainer, "error code \(error.code): \(error)")
        check(offset >= 0 && (offset < 16 || offset == bytes.count), "offset \(offset) of \(bytes.count): \(error)")
    }
    return 0
}
