/// Writes an NDEF message to an NFC Forum Type 5 tag (ISO 15693) with the PC/SC UPDATE `FF D6 <hi> <lo> <block
/// size> <data>`, one block per command, so that a tag leaving at any command holds the old message, an empty
/// one or the new one (docs/tags.md, "Writing Type 5 tags").
///
/// The NDEF TLV goes at the start of the data area (byte 4 or 8, after the capability container): first the
/// block holding its T and L with L = 0, then the value blocks and the terminator, then the first block again
/// with the real L. The message is then read back and compared.
public struct Type5Writer: Sendable {
    /// Creates a writer.
    public init() {}

    /// Writes `message` (an empty one leaves an empty NDEF TLV).
    /// - Parameters:
    ///   - message: the encoded NDEF message.
    ///   - channel: the channel to the tag.
    /// - Throws: `NFCTagError`: `malformedCapabilityContainer` (also for a tag that is not NDEF formatted),
    ///   `readOnly` (CC write access not `00`, or the first UPDATE refused; the tag untouched), `readAccessDenied`
    ///   (CC read access not `00`: the message could not be read back; the tag untouched),
    ///   `insufficientCapacity` (naming the message and data area sizes; the tag untouched), `tagRemoved`,
    ///   `unexpectedStatus`, `verificationFailed` (the read-back differs).
    public func write(_ message: [UInt8], to channel: some CardChannel) async throws {
        var blocks = Type5Blocks()
        let layout = try await Self.formattedLayout(&blocks, channel: channel)
        let cc = layout.cc
        guard cc.isWritable else {
            throw NFCTagError(
                .readOnly, offset: 1,
                "Type 5 capability container at byte 1: write access \(cc.writeAccess) forbids writing")
        }
        // The message could not be read back, nor by anyone else: refused before anything is written.
        guard cc.isReadable else {
            throw NFCTagError(
                .readAccessDenied, offset: 1,
                "Type 5 capability container at byte 1: read access \(cc.readAccess) forbids reading the message back; the tag is untouched"
            )
        }
        let header: [UInt8] =
            message.count < 0xFF
            ? [0x03, UInt8(message.count)]
            : [0x03, 0xFF, UInt8(truncatingIfNeeded: message.count >> 8), UInt8(truncatingIfNeeded: message.count)]
        guard message.count <= 0xFFFE, header.count + message.count <= layout.dataAreaSize else {
            throw NFCTagError(
                .insufficientCapacity, offset: cc.size,
                "Type 5 tag: a \(message.count)-byte message needs \(header.count + message.count) bytes with its TLV header; the data area holds \(layout.dataAreaSize)"
            )
        }
        let blockSize = blocks.blockSize
        // The tag bytes from the start of the block holding the CC's end: kept CC bytes, then the TLV.
        var tlv = header + message
        if tlv.count < layout.dataAreaSize { tlv.append(0xFE) }
        let firstBlock = cc.size / blockSize
        var image = Array(layout.memory[(firstBlock * blockSize)..<cc.size]) + tlv
        image += [UInt8](repeating: 0, count: (blockSize - image.count % blockSize) % blockSize)
        let blockCount = image.count / blockSize
        func block(_ index: Int) -> [UInt8] { Array(image[(index * blockSize)..<((index + 1) * blockSize)]) }

        var first = block(0)
        // L = 0: `03 00`, or `03 FF 00 00` for the three-byte form.
        let lengthAt = cc.size - firstBlock * blockSize + (header.count == 2 ? 1 : 2)
        for index in lengthAt..<(lengthAt + (header.count == 2 ? 1 : 2)) { first[index] = 0 }
        do {
            try await blocks.write(block: firstBlock, data: first, channel: channel)
        } catch let error as NFCTagError where error.code == .unexpectedStatus {
            throw NFCTagError(.readOnly, offset: error.offset, "\(error.message): the tag refuses writing")
        }
        for index in 1..<max(blockCount, 1) {
            try await blocks.write(block: firstBlock + index, data: block(index), channel: channel)
        }
        if first != block(0) {
            try await blocks.write(block: firstBlock, data: block(0), channel: channel)
        }
        try await Self.verify(message, channel: channel)
    }

    /// Makes the tag read-only as far as PC/SC allows: the CC's write access bits become `11`. (Locking the
    /// blocks themselves needs ISO 15693 LOCK BLOCK, which the storage-card commands do not reach.)
    /// - Parameter channel: the channel to the tag.
    /// - Throws: `NFCTagError`: `malformedCapabilityContainer`, `readOnly` (already read-only, or the UPDATE
    ///   refused), `tagRemoved`, `unexpectedStatus`, `verificationFailed`.
    public func lock(_ channel: some CardChannel) async throws {
        var blocks = Type5Blocks()
        let layout = try await Self.formattedLayout(&blocks, channel: channel)
        guard layout.cc.isWritable else {
            throw NFCTagError(
                .readOnly, offset: 1,
                "Type 5 capability container at byte 1: write access \(layout.cc.writeAccess), already read-only")
        }
        var block0 = Array(layout.memory.prefix(blocks.blockSize))
        block0[1] |= 0x03
        do {
            try await blocks.write(block: 0, data: block0, channel: channel)
        } catch let error as NFCTagError where error.code == .unexpectedStatus {
            throw NFCTagError(.readOnly, offset: error.offset, "\(error.message): the tag refuses writing")
        }
        var check = Type5Blocks()
        let after = try await check.read(block: 0, channel: channel)
        guard after == block0 else {
            throw NFCTagError(
                .verificationFailed, offset: 0,
                "Type 5 block 0 reads back \(CommandName.hex(after[...])) after writing \(CommandName.hex(block0[...]))"
            )
        }
    }

    /// Block 0 (and 1) of a formatted tag.
    private static func formattedLayout(
        _ blocks: inout Type5Blocks, channel: some CardChannel
    ) async throws -> Type5Reader.Layout {
        guard let layout = try await Type5Reader.layout(&blocks, channel: channel) else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: 0,
                "Type 5 tag at byte 0: no capability container (E1 or E2); the tag is not NDEF formatted")
        }
        return layout
    }

    /// Reads the tag back and compares.
    private static func verify(_ message: [UInt8], channel: some CardChannel) async throws {
        let content = try await Type5Reader().read(from: channel)
        let expected: TagReading.Content = message.isEmpty ? .empty : .message(message)
        guard content == expected else {
            throw NFCTagError(
                .verificationFailed, "Type 5 tag reads back \(content) after writing a \(message.count)-byte message")
        }
    }
}
