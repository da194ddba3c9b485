import FuzzSupport
import NDEF

/// NDEF message decoding: a rejected input names a byte offset inside it (or its end) and a record index no
/// larger than the records seen; an accepted one re-encodes, and the encoding decodes to the same records and
/// is a fixed point of decode ∘ encode. Every record's content (U, T, Sp, AAR) holds up, as documented.
@_cdecl("fuzz_ndef_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let message: NDEFMessage
    do {
        message = try NDEFMessage(decoding: bytes)
    } catch {
        check(error.offset >= 0 && error.offset <= bytes.count, "offset \(error.offset) of \(bytes.count): \(error)")
        check(error.record >= 0 && error.record <= bytes.count / 3, "record index \(error.record): \(error)")
        check(!error.description.isEmpty, "an error has a description")
        return 0
    }
    check(message.records.count <= max(1, bytes.count / 3), "\(message.records.count) records from \(size) bytes")
    for record in message.records {
        _ = record.summary
        if case .invalid(let error) = record.content {
            check(false, "a record of a decoded message has invalid content: \(error)")
        }
        _ = record.typeText
    }
    _ = message.tagURI
    _ = message.texts
    let encoded: [UInt8]
    do {
        encoded = try message.encoded()
    } catch {
        check(false, "a decoded message does not encode: \(error)")
        return 0
    }
    do {
        let again = try NDEFMessage(decoding: encoded)
        check(again == message, "decode(encode(m)) != m")
        check((try? again.encoded()) == encoded, "encode ∘ decode is not a fixed point")
    } catch {
        check(false, "the encoding of a decoded message does not decode: \(error)")
    }
    return 0
}
