import Testing
import VirtualTag

@Test func frameIsBigEndianLengthThenPayload() {
    #expect(VPCDFrame.encode([0x01]) == [0x00, 0x01, 0x01])
    #expect(VPCDFrame.encode(Array(repeating: 0xAB, count: 300)).prefix(3) == [0x01, 0x2C, 0xAB])
    #expect(VPCDFrame.encode([]) == [0x00, 0x00])
}
