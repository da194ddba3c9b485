import NFCTag
import TestSupport
import Testing

/// A random data area biased towards TLV tags and small lengths, so walks go deep.
private func randomDataArea(size: Int, using generator: inout SplitMix64) -> [UInt8] {
    let interesting: [UInt8] = [0x00, 0x01, 0x02, 0x03, 0xFD, 0xFE, 0xFF, 0x03, 0x00, 0x02, 0x04, 0x10]
    return (0..<size).map { _ in
        Bool.random(using: &generator)
            ? interesting.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
    }
}

/// The outcome of a read, comparable across readers: content, or the error's description.
private func outcome(_ body: () async throws -> TagReading.Content) async -> String {
    do {
        return "\(try await body())"
    } catch {
        return "error: \(error)"
    }
}

/// Hostile input: for random data areas, the incremental channel read (three reader kinds) and the whole-dump
/// walk agree on the content or on the exact error, and no read goes past the data area.
@Test(arguments: 0..<8)
func incrementalReadAgreesWithWholeDataAreaWalk(seed: UInt64) async throws {
    var generator = SplitMix64(seed: seed)
    for _ in 0..<250 {
        let size = Int.random(in: 1...40, using: &generator) * 8
        let dataArea = randomDataArea(size: size, using: &generator)
        let expected = await outcome { try Type2TLV.ndefMessage(inDataArea: dataArea) }
        let cc: [UInt8] = [0xE1, 0x10, UInt8(size / 8), 0x00]
        for kind in [Type2Memory.ReaderKind.upTo16, .onePage, .onlyLe4(status: 0x6700)] {
            let memory = Type2Memory(image: Type2Memory.image(cc: cc, dataArea: dataArea), kind: kind)
            let actual = await outcome { try await Type2Reader().read(from: memory) }
            #expect(actual == expected, "data area \(Hex.string(dataArea)), reader \(kind)")
            for read in memory.reads.dropFirst() {
                let end = (Int(read[2]) << 8 | Int(read[3])) * 4 + Int(read[4])
                #expect(end <= 16 + size, "read \(Hex.string(read)) past the data area of \(size) bytes")
            }
        }
    }
}
