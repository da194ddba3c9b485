/// Reads the NDEF message of an NFC Forum Type 1 tag (Topaz 96, Topaz 512) on the ACS ACR122U, whose PN532
/// carries Type 1 commands through `FF 00 00 00 Lc D4 40 01 <command>` (docs/tags.md, "Type 1 tags").
///
/// One READ ALL (`00`) returns HR0, HR1 and bytes 0-119: the capability container at bytes 8-11
/// (`E1 <version> <TMS> <access>`) and the TLV stream from byte 12, walked with the Type 2 rules up to byte 103
/// (blocks `0D`-`0E` hold reserved and lock bytes). A message reaching past byte 103 would need READ8 on a
/// Topaz 512, which is not sent: such a tag fails the read naming the byte.
public struct Type1Reader: Sendable {
    /// Creates a reader.
    public init() {}

    /// The last data byte READ ALL reaches (exclusive): block `0D` starts at 104.
    static let dataEnd = 104

    /// Reads the NDEF content.
    /// - Parameter channel: the channel to the tag.
    /// - Returns: `.message`, `.empty` or `.absent` (CC magic not `E1`, or no NDEF TLV).
    /// - Throws: `NFCTagError`: `tagRemoved`, `unexpectedStatus` and `unexpectedResponse` (naming the command),
    ///   `malformedCapabilityContainer`, `malformedTLV`, `readAccessDenied`, `messageTooLarge` (past byte 103).
    public func read(from channel: some CardChannel) async throws -> TagReading.Content {
        let command: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x40, 0x01, 0x00]
        let response = try await channel.exchangeExpectingSuccess(command)
        let data = response.data
        guard data.count >= 3, data.prefix(3).elementsEqual([0xD5, 0x41, 0x00]) else {
            throw NFCTagError(
                .unexpectedResponse,
                "Type 1 READ ALL through the PN532 (FF 00 00 00 04 D4 40 01 00) answered \(CommandName.hex(data.prefix(3), separator: " ")), not D5 41 00"
            )
        }
        let answer = Array(data.dropFirst(3))
        guard answer.count == 122 else {
            throw NFCTagError(
                .unexpectedResponse,
                "Type 1 READ ALL answered \(answer.count) bytes, HR0 HR1 and 120 bytes of memory expected")
        }
        let hr0 = answer[0]
        guard hr0 >> 4 == 0x1 else {
            throw NFCTagError(
                .unexpectedResponse, "Type 1 READ ALL answered HR0 \(CommandName.hex(hr0)): not an NDEF Type 1 tag")
        }
        let memory = Array(answer[2...])
        guard memory[8] == 0xE1 else { return .absent }
        guard memory[9] >> 4 == 1 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 9,
                "Type 1 capability container at byte 9: version \(memory[9] >> 4).\(memory[9] & 0xF) is not supported (major version 1 expected)"
            )
        }
        guard memory[11] >> 4 == 0 else {
            throw NFCTagError(
                .readAccessDenied, offset: 11,
                "Type 1 capability container at byte 11: access \(CommandName.hex(memory[11])) forbids reading")
        }
        // Static (HR0 11): the data area is bytes 12-103. Dynamic (Topaz 512): the TMS says how far it goes,
        // of which RALL shows bytes 12-103.
        let memorySize = 8 * (Int(memory[10]) + 1)
        let dataAreaSize = hr0 == 0x11 ? Self.dataEnd - 12 : max(0, min(memorySize, 512) - 12 - 24)
        let visible = min(dataAreaSize, Self.dataEnd - 12)
        let dataArea = Array(memory[12..<(12 + visible)])
        var walker = Type2TLVWalker(dataAreaSize: dataAreaSize, baseAddress: 12, label: "Type 1")
        let tooLarge = NFCTagError(
            .messageTooLarge, offset: 12 + visible,
            "Type 1 TLV stream at byte \(12 + visible): the NDEF data goes past byte \(Self.dataEnd - 1), which needs READ8 (not supported)"
        )
        switch try walker.step(dataArea, available: visible) {
        case .need:
            throw tooLarge
        case .noNDEF:
            return .absent
        case .ndef(_, _, length: 0):
            return .empty
        case .ndef(_, let end, _) where end > visible:
            throw tooLarge
        case .ndef(let start, let end, _):
            return .message(walker.value(dataArea, start: start, end: end))
        }
    }
}
