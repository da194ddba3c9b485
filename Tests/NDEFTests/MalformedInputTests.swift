import NDEF
import TestSupport
import Testing

@Test(arguments: malformedNDEFVectors)
func rejectsMalformedInput(hex: String, sentence: String) {
    do {
        let message = try NDEFMessage(decoding: Hex.bytes(hex))
        Issue.record("decoded \(message.records.count) records instead of failing")
    } catch {
        #expect(error.description == sentence)
    }
}

/// A message whose Smart Poster holds a URI and a Smart Poster, `levels` Smart Posters in all.
func nestedSmartPosters(levels: Int) -> [UInt8] {
    var payload = Hex.bytes("d1 01 02 55 04 61")
    for _ in 1..<levels {
        payload = Hex.bytes("91 01 02 55 04 61 51 02") + [UInt8(payload.count), 0x53, 0x70] + payload
    }
    return [0xD1, 0x02, UInt8(payload.count), 0x53, 0x70] + payload
}

@Test func rejectsSmartPostersNestedTooDeep() {
    let wrappers = String(repeating: "in the Smart Poster, record 1: ", count: 4)
    do {
        _ = try NDEFMessage(decoding: nestedSmartPosters(levels: 5))
        Issue.record("decoded Smart Posters nested 5 deep")
    } catch {
        #expect(error.description == "record 0 at byte 49: \(wrappers)Smart Posters are nested more than 4 deep")
        #expect(error.code == .invalidSmartPoster)
    }
    #expect(throws: Never.self) { try NDEFMessage(decoding: nestedSmartPosters(levels: 4)) }
}

@Test func errorCarriesCodeRecordAndOffset() {
    do {
        _ = try NDEFMessage(decoding: Hex.bytes("95 00 00 51"))
        Issue.record("decoded a truncated message")
    } catch {
        #expect(error.code == .truncatedHeader)
        #expect(error.record == 1)
        #expect(error.offset == 3)
        #expect(error.message == "record header needs 3 bytes but the message ends after 1 byte")
    }
}
