import FuzzSupport
import NFCTag

/// Type 4 CC file parsing. Invariants: an error names a CC file offset inside the input (or its end); a parsed
/// CC agrees with its bytes and its NDEF file can hold its NLEN.
@_cdecl("fuzz_type4_cc_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let cc = try Type4CapabilityContainer(bytes)
        check(cc.length == Int(bytes[0]) << 8 | Int(bytes[1]), "CCLEN \(cc.length)")
        check(cc.fileID == Array(bytes[9...10]), "file ID \(cc.fileID)")
        check(cc.maxFileSize >= cc.nlenSize, "max file size \(cc.maxFileSize) below NLEN \(cc.nlenSize)")
        check(cc.maxResponseData >= 15, "MLe \(cc.maxResponseData)")
        check(cc.length >= (cc.isExtended ? 17 : 15), "CCLEN \(cc.length) shorter than its TLV")
    } catch let error as NFCTagError {
        let offset = error.offset ?? -1
        check(error.code == .malformedCapabilityContainer, "error code \(error.code): \(error)")
        check(offset >= 0 && offset <= bytes.count, "offset \(offset) of \(bytes.count): \(error)")
    } catch {
        check(false, "CC parsing threw \(error)")
    }
    return 0
}
