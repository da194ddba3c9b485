import NDEF
import TestSupport
import Testing

@Test(arguments: decodeVectors.filter { !$0.hex.isEmpty })
func everyTruncationFailsCleanly(_ vector: DecodeVector) {
    let bytes = Hex.bytes(vector.hex)
    for length in 1..<bytes.count {
        #expect(throws: NDEFError.self, "prefix of \(length) bytes") {
            try NDEFMessage(decoding: bytes.prefix(length))
        }
    }
}

@Test(arguments: decodeVectors.filter { !$0.hex.isEmpty })
func everyByteMutationDecodesOrFails(_ vector: DecodeVector) {
    let bytes = Hex.bytes(vector.hex)
    for index in bytes.indices {
        for value in [0x00, 0x01, 0x7F, 0x80, 0xFF, bytes[index] ^ 0x10, bytes[index] ^ 0x20] as [UInt8] {
            var mutated = bytes
            mutated[index] = value
            if let message = try? NDEFMessage(decoding: mutated) {
                // Whatever decodes re-encodes without trapping and decodes to the same records.
                #expect((try? NDEFMessage(decoding: message.encoded())) == message)
            }
        }
    }
}

@Test func randomBytesNeverCrash() {
    var generator = SplitMix64(seed: 2026)
    var decoded = 0
    for _ in 0..<20_000 {
        let count = Int.random(in: 0...48, using: &generator)
        var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Bias towards plausible headers so the parser gets past the first byte often.
        if !bytes.isEmpty { bytes[0] = (bytes[0] & 0x3F) | 0x80 | (Bool.random(using: &generator) ? 0x40 : 0) }
        if (try? NDEFMessage(decoding: bytes)) != nil { decoded += 1 }
    }
    #expect(decoded > 0)
}

@Test func hugeClaimedLengthsFailWithoutAllocating() {
    // 10 bytes claiming a 4 GiB payload, in the first record and after a valid one.
    for hex in ["c5 00 ffffffff 00000000", "95 00 00 45 00 fffffffe 00"] {
        #expect(throws: NDEFError.self) { try NDEFMessage(decoding: Hex.bytes(hex)) }
    }
}

@Test func manyEmptyChunksStayLinear() throws {
    // 20,000 chunks of 64 bytes: reassembly appends in place, never copying the whole payload per chunk.
    var bytes: [UInt8] = [0xB5, 0x00, 0x00]
    for _ in 0..<20_000 { bytes += [0x36, 0x00, 0x40] + Array(repeating: 0x61, count: 64) }
    bytes += [0x56, 0x00, 0x01, 0x2A]
    let message = try NDEFMessage(decoding: bytes)
    #expect(message.records.count == 1)
    #expect(message.records[0].payload.count == 20_000 * 64 + 1)
}
