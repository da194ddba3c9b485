import FuzzSupport
import NFCTag

/// Type 2 capability container and TLV parsing over a data area in memory. The first four bytes are the CC,
/// the rest the data area. Invariants: errors name a tag byte address inside what was given (CC bytes 12..<16,
/// data area from 16); a message lies inside the data area; a parsed CC re-encodes to its bytes.
@_cdecl("fuzz_type2_tlv_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let ccBytes = bytes.prefix(4)
    do {
        if let cc = try Type2CapabilityContainer(ccBytes) {
            check(cc.bytes == Array(ccBytes), "CC \(ccBytes) re-encodes as \(cc.bytes)")
            check(cc.dataAreaSize > 0 && cc.dataAreaSize <= 2040, "data area size \(cc.dataAreaSize)")
        } else {
            check(ccBytes.first != 0xE1, "a CC with magic E1 parsed as absent")
        }
    } catch let error as NFCTagError {
        let offset = error.offset ?? -1
        check((12..<16).contains(offset), "CC error offset \(offset): \(error)")
    } catch {
        check(false, "CC parsing threw \(error)")
    }

    let dataArea = Array(bytes.dropFirst(4))
    do {
        switch try Type2TLV.ndefMessage(inDataArea: dataArea) {
        case .message(let message):
            check(!message.isEmpty, "an empty .message")
            check(message.count <= dataArea.count, "a \(message.count)-byte message in \(dataArea.count) bytes")
        case .empty, .absent:
            break
        }
    } catch let error as NFCTagError {
        let offset = error.offset ?? -1
        check(error.code == .malformedTLV, "TLV error code \(error.code): \(error)")
        check(
            offset >= 16 && offset <= 16 + dataArea.count, "TLV error offset \(offset) of \(dataArea.count): \(error)")
    } catch {
        check(false, "TLV parsing threw \(error)")
    }
    return 0
}
