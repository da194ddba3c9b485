import NFCTag
import TestSupport
import Testing

@Test func scriptedChannelAnswersInOrderAndRecords() async throws {
    let channel = ScriptedChannel(hex: [("00 01", "90 00"), ("00 02", "6A 82")])
    #expect(try await channel.transmit([0x00, 0x01]) == [0x90, 0x00])
    #expect(try await channel.transmit([0x00, 0x02]) == [0x6A, 0x82])
    #expect(channel.sent == [[0x00, 0x01], [0x00, 0x02]])
    #expect(channel.isFinished)
}

@Test func scriptedChannelFlagsACommandOffScript() async throws {
    let channel = ScriptedChannel(hex: [("00 01", "90 00")])
    await withKnownIssue {
        _ = try await channel.transmit([0x00, 0x09])
    }
    await withKnownIssue {
        _ = try await channel.transmit([0x00, 0x01])  // past the end of the script
    }
}

@Test func scriptedChannelRemovesTheTagAtTheGivenIndex() async throws {
    let channel = ScriptedChannel(hex: [("00 01", "90 00"), ("00 02", "90 00")], removalIndex: 1)
    _ = try await channel.transmit([0x00, 0x01])
    await #expect(throws: ScriptedChannel.Removed.self) { try await channel.transmit([0x00, 0x02]) }
}
