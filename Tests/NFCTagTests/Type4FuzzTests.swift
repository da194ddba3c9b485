import NFCTag
import TestSupport
import Testing

/// Hostile input: random CC files and NDEF files never crash or loop the Type 4 reader; whatever it returns
/// as a message is exactly the file's bytes after NLEN, and it never reads past what NLEN needs.
@Test(arguments: 0..<4)
func randomType4CardsAreReadOrRejected(seed: UInt64) async throws {
    var generator = SplitMix64(seed: seed)
    var messages = 0
    // Select, CC and NDEF selects and reads, and at most 600 bytes in 15-byte reads (the smallest MLe).
    let maximumCommands: Int = 6 + 600 / 15 + 1
    for _ in 0..<250 {
        let extended = Bool.random(using: &generator)
        let mle = [0x00, 0x0E, 0x0F, 0x3B, 0xFF, 0x1000].randomElement(using: &generator)!
        let maxSize = Int.random(in: 0...600, using: &generator)
        var cc: [UInt8] = [0x00, extended ? 0x11 : 0x0F, extended ? 0x30 : 0x20, UInt8(mle >> 8), UInt8(mle & 0xFF)]
        cc += [0x00, 0xFF, extended ? 0x06 : 0x04, extended ? 0x08 : 0x06, 0xE1, 0x04]
        cc +=
            extended
            ? [0, 0, UInt8(maxSize >> 8), UInt8(maxSize & 0xFF)] : [UInt8(maxSize >> 8), UInt8(maxSize & 0xFF)]
        cc += [Bool.random(using: &generator) ? 0x00 : 0xFF, 0x00]
        if Int.random(in: 0..<8, using: &generator) == 0 {
            cc[Int.random(in: 0..<cc.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
        }
        let fileSize = Int.random(in: 0...600, using: &generator)
        var file = (0..<fileSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let nlenSize = extended ? 4 : 2
        if fileSize >= nlenSize, Int.random(in: 0..<4, using: &generator) > 0 {
            // A plausible NLEN most of the time (it may still exceed the CC's maximum size).
            let nlen = Int.random(in: 0...(fileSize - nlenSize), using: &generator)
            for index in 0..<nlenSize { file[index] = UInt8(truncatingIfNeeded: nlen >> (8 * (nlenSize - 1 - index))) }
        }
        let card = Type4CardFake(ccFile: cc, ndefFile: file)
        do {
            let reading = try await TagReader().read(atr: Hex.bytes("3B 80 80 01 01"), channel: card)
            if case .message(let message) = reading.content {
                messages += 1
                #expect(Array(file[nlenSize..<(nlenSize + message.count)]) == message)
            }
        } catch let error as NFCTagError {
            #expect(error.code != .tagRemoved, "\(error)")
        }
        #expect(card.sent.count <= maximumCommands)
    }
    #expect(messages > 0)
}

@Test func type4CardFakeMatchesTheScriptedSequence() async throws {
    let message = Fixtures.uriMessage(length: 100)
    let file = [0x00, 0x64] + message + [UInt8](repeating: 0, count: 200)
    let card = Type4CardFake(ccFile: Hex.bytes("000F 20 00FF 00FF 0406 E104 0800 00 00"), ndefFile: file)
    let reading = try await TagReader().read(atr: Hex.bytes("3B 80 80 01 01"), channel: card)
    #expect(reading.content == .message(message))
    #expect(
        card.sent.map { Hex.string($0) } == [
            "ffca000000", "00a4040007d276000085010100", "00a4000c02e103", "00b000000f", "00a4000c02e104", "00b00000ff",
        ])
}
