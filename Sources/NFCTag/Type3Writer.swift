/// Writes an NDEF message to an NFC Forum Type 3 tag (FeliCa Lite-S, FeliCa with the NDEF system) with Write
/// Without Encryption, so that a card leaving at any command holds the old message, an empty one or the new one
/// (docs/tags.md, "Writing Type 3 tags"): the attribute block with WriteF `0F` and Ln 0, the data blocks (at most
/// Nbw per command), the attribute block with the new Ln and WriteF `00`, checksums recomputed. The message is
/// then read back and compared.
public struct Type3Writer: Sendable {
    /// Creates a writer.
    public init() {}

    /// Writes `message`.
    /// - Parameters:
    ///   - message: the encoded NDEF message.
    ///   - channel: the channel to the card.
    ///   - atr: the card's ATR (it picks the reader path); nil takes the `FF 00 00 00 <frame>` path first.
    /// - Throws: `NFCTagError`: `malformedCapabilityContainer` (attribute block; also for a card without the NDEF
    ///   system), `readOnly` (RWFlag `00` or Nbw 0; the card untouched), `insufficientCapacity` (naming the
    ///   message size and Nmaxb × 16; the card untouched), `tagRemoved`, `unexpectedStatus`, `unexpectedResponse`,
    ///   `verificationFailed`.
    public func write(_ message: [UInt8], to channel: some CardChannel, atr: [UInt8]?) async throws {
        var (card, attribute) = try await Self.open(channel: channel, atr: atr)
        guard attribute.isWritable else {
            throw NFCTagError(
                .readOnly, offset: attribute.rwFlag == 0 ? 10 : 2,
                "Type 3 attribute block: RWFlag \(CommandName.hex(attribute.rwFlag)), Nbw \(attribute.maxWriteBlocks): the card is read-only"
            )
        }
        guard message.count <= attribute.capacity, message.count <= 0xFFFFFF else {
            throw NFCTagError(
                .insufficientCapacity, offset: 16,
                "Type 3 card: a \(message.count)-byte message does not fit the \(attribute.capacity)-byte NDEF area (Nmaxb \(attribute.maxBlocks) × 16)"
            )
        }
        // WriteF 0F and Ln 0 first: a card taken away from here on reads as empty until the last write.
        var writing = attribute
        writing.writeFlag = 0x0F
        writing.length = 0
        try await card.write(blocks: 0..<1, data: writing.bytes, channel: channel)
        let blockCount = (message.count + 15) / 16
        let data = message + [UInt8](repeating: 0, count: blockCount * 16 - message.count)
        let perCommand = min(attribute.maxWriteBlocks, Type3Card.maxBlocksPerCommand)
        var block = 1
        while block <= blockCount {
            let end = min(block + perCommand, blockCount + 1)
            try await card.write(
                blocks: block..<end, data: Array(data[((block - 1) * 16)..<((end - 1) * 16)]), channel: channel)
            block = end
        }
        var done = attribute
        done.writeFlag = 0x00
        done.length = message.count
        try await card.write(blocks: 0..<1, data: done.bytes, channel: channel)

        let content = try await Type3Reader().read(from: channel, atr: atr ?? [], idm: card.idm)
        let expected: TagReading.Content = message.isEmpty ? .empty : .message(message)
        guard content == expected else {
            throw NFCTagError(
                .verificationFailed, "Type 3 card reads back \(content) after writing a \(message.count)-byte message")
        }
    }

    /// Makes the card read-only as far as the NDEF mapping goes: RWFlag `00` in the attribute block.
    /// - Parameters:
    ///   - channel: the channel to the card.
    ///   - atr: the card's ATR (it picks the reader path).
    /// - Throws: `NFCTagError` as ``write(_:to:atr:)``; `readOnly` when it already is.
    public func lock(_ channel: some CardChannel, atr: [UInt8]?) async throws {
        var (card, attribute) = try await Self.open(channel: channel, atr: atr)
        guard attribute.rwFlag == 0x01 else {
            throw NFCTagError(.readOnly, offset: 10, "Type 3 attribute block at byte 10: RWFlag 00, already read-only")
        }
        attribute.rwFlag = 0x00
        try await card.write(blocks: 0..<1, data: attribute.bytes, channel: channel)
        let after = try await card.read(blocks: 0..<1, channel: channel)
        guard after == attribute.bytes else {
            throw NFCTagError(
                .verificationFailed, offset: 0,
                "Type 3 attribute block reads back \(CommandName.hex(after[...])) after writing \(CommandName.hex(attribute.bytes[...]))"
            )
        }
    }

    /// Writes `message` on a reader whose path the ATR does not tell (`FF 00 00 00 <frame>`, then `FF 46`).
    public func write(_ message: [UInt8], to channel: some CardChannel) async throws {
        try await write(message, to: channel, atr: nil)
    }

    /// Locks a card on a reader whose path the ATR does not tell.
    public func lock(_ channel: some CardChannel) async throws {
        try await lock(channel, atr: nil)
    }

    /// Gets the IDm (`FF CA`, else Polling) and the attribute block.
    private static func open(
        channel: some CardChannel, atr: [UInt8]?
    ) async throws -> (Type3Card, Type3AttributeBlock) {
        let uid = try await TagReader().readUID(channel: channel)
        guard var card = try await Type3Card.open(channel: channel, atr: atr ?? [], idm: uid) else {
            throw NFCTagError(
                .malformedCapabilityContainer,
                "Type 3 card: no answer for the NDEF system 12FC; it is not NDEF formatted")
        }
        let block = try await card.read(blocks: 0..<1, channel: channel)
        guard block.contains(where: { $0 != 0 }) else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 0,
                "Type 3 attribute block at byte 0: all zeros; the card is not NDEF formatted")
        }
        return (card, try Type3AttributeBlock(block[...], allowingWriteInProgress: true))
    }
}
