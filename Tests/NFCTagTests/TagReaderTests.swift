import NFCTag
import TestSupport
import Testing

@Test(
    arguments: [
        (
            "3B 8F 80 01 80 4F 0C A0 00 00 03 06 07 00 06 00 00 00 00 6C",
            "card name 0006 with ATR 3B8F8001804F0CA000000306070006000000006C cannot be read"
        )
    ])
func unsupportedStorageCardsAreNamed(atr: String, text: String) async throws {
    let channel = ScriptedChannel([])
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Hex.bytes(atr), channel: channel)
    }
    #expect(error?.code == .unsupportedCard)
    #expect(error?.description == text)
    #expect(channel.sent.isEmpty)
}

@Test func removalDuringUIDIsTagRemovedWithTheCommandNamed() async throws {
    let channel = ScriptedChannel(hex: [("FF CA 00 00 00", "90 00")], removalIndex: 0)
    let error = await #expect(throws: NFCTagError.self) {
        try await TagReader().read(atr: Fixtures.ntagATR, channel: channel)
    }
    #expect(error?.description == "tag removed during GET UID (scripted removal at command 0)")
}
