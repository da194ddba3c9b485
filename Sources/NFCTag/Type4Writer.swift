/// Writes an NDEF message to an NFC Forum Type 4 tag with ISO 7816-4 UPDATE BINARY, the NFC Forum way: NLEN 0,
/// then the message from offset 2 (4 for an extended NDEF file) in chunks of at most MLc bytes, then the real
/// NLEN, so a tag taken away after any command holds its old message, an empty one or the new one (docs/tags.md,
/// "How a tag is written").
///
/// Before writing it selects the NDEF application (mapping v2, then v1) and reads the CC file, and refuses,
/// having written nothing, a card without the application, a CC whose write access is not `00`, and a message
/// larger than the NDEF file.
public struct Type4Writer: Sendable {
    /// Creates a writer.
    public init() {}

    /// Writes `message` safely. The caller reads the tag back to verify it (``TagWriter`` does).
    /// - Parameters:
    ///   - message: the raw NDEF message bytes; empty writes NLEN 0 alone.
    ///   - channel: the channel to the card.
    /// - Returns: the most bytes a message may have on this tag.
    /// - Throws: `NFCTagError`: `unsupportedCard` (no NDEF application), `readOnly` (write access not `00`),
    ///   `insufficientCapacity` (naming both sizes), `malformedCapabilityContainer`, `tagRemoved`,
    ///   `unexpectedStatus`, `unexpectedResponse`.
    @discardableResult
    public func write(_ message: [UInt8], to channel: some CardChannel) async throws -> Int {
        let selectV2: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        var p2: UInt8 = 0x0C
        if try await !channel.exchange(selectV2).isSuccess {
            let selectV1 = Array(selectV2.dropLast()).enumerated().map { $0.offset == 11 ? 0x00 : $0.element }
            guard try await channel.exchange(selectV1).isSuccess else {
                throw NFCTagError(
                    .unsupportedCard,
                    "ISO 14443-4 card without the NDEF application (D2760000850101 or …00): not a Type 4 tag")
            }
            p2 = 0x00
        }
        _ = try await channel.exchangeExpectingSuccess([0x00, 0xA4, 0x00, p2, 0x02, 0xE1, 0x03])
        var ccBytes = Array(try await channel.exchangeExpectingSuccess([0x00, 0xB0, 0x00, 0x00, 0x0F]).data)
        if ccBytes.count >= 15, ccBytes[7] == 0x06, ccBytes.count < 17 {
            let rest = [0x00, 0xB0, 0x00, UInt8(ccBytes.count), UInt8(17 - ccBytes.count)]
            ccBytes += try await channel.exchangeExpectingSuccess(rest).data
        }
        let cc = try Type4CapabilityContainer(ccBytes)
        let fileName = CommandName.hex(cc.fileID[...])
        guard cc.writeAccess == 0x00 else {
            throw NFCTagError(
                .readOnly, offset: cc.isExtended ? 16 : 14,
                "Type 4 NDEF file \(fileName): write access \(CommandName.hex(cc.writeAccess)) makes the tag read-only")
        }
        let nlenSize = cc.nlenSize
        // Short UPDATE BINARY reaches offsets up to 32767.
        let capacity = min(cc.maxFileSize, 0x8000) - nlenSize
        guard message.count <= capacity else {
            throw NFCTagError(
                .insufficientCapacity,
                "the message is \(message.count) bytes; this Type 4 tag's NDEF file \(fileName) holds at most \(capacity) bytes"
            )
        }
        guard cc.maxCommandData >= nlenSize else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 5,
                "Type 4 CC file at byte 5: MLc \(cc.maxCommandData) cannot carry the \(nlenSize)-byte NLEN in one command"
            )
        }
        _ = try await channel.exchangeExpectingSuccess([0x00, 0xA4, 0x00, p2, 0x02, cc.fileID[0], cc.fileID[1]])

        _ = try await channel.exchangeExpectingSuccess(Self.update(offset: 0, Self.nlen(0, size: nlenSize)))
        guard !message.isEmpty else { return capacity }
        let chunk = min(cc.maxCommandData, 255)
        var offset = 0
        while offset < message.count {
            let end = min(offset + chunk, message.count)
            _ = try await channel.exchangeExpectingSuccess(
                Self.update(offset: nlenSize + offset, Array(message[offset..<end])))
            offset = end
        }
        _ = try await channel.exchangeExpectingSuccess(
            Self.update(offset: 0, Self.nlen(message.count, size: nlenSize)))
        return capacity
    }

    /// Refuses, sending nothing: the Type 4 Tag specification has no command that makes a tag read-only. Its CC
    /// file's write access byte is set with the card's own commands (NTAG 424 and DESFire: ChangeFileSettings,
    /// authenticated with the card's key), which TagRouter does not send.
    /// - Parameter channel: the channel to the card (unused).
    /// - Throws: `NFCTagError.unsupportedCard`, always.
    public func lock(_ channel: some CardChannel) async throws {
        throw NFCTagError(
            .unsupportedCard,
            "a Type 4 tag cannot be made read-only with standard commands (its write access is changed with the card's own authenticated commands)"
        )
    }

    /// `00 D6 <offset> <Lc> <data>`.
    static func update(offset: Int, _ data: [UInt8]) -> [UInt8] {
        [0x00, 0xD6, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(data.count)] + data
    }

    /// NLEN as `size` big-endian bytes.
    static func nlen(_ value: Int, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
    }
}
