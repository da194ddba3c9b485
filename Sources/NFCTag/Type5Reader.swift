/// Reads the NDEF message of an NFC Forum Type 5 tag (ISO 15693: ICODE SLIX/SLIX2, ST25TV/DV, Tag-it) through
/// the PC/SC storage-card READ `FF B0`, one block per command, in as few reads as the NDEF length allows
/// (docs/tags.md, "Type 5 tags").
///
/// Block 0 comes first: its length gives the block size (4 or 8), its first byte the capability container
/// (`E1`/`E2`; anything else is a tag that is not NDEF formatted). An eight-byte CC on 4-byte blocks takes block 1
/// too. The TLVs (those of Type 2) then follow from byte 4 or 8, read only as far as the NDEF TLV reaches. The
/// command forms readers differ on are handled by ``Type5Blocks``.
public struct Type5Reader: Sendable {
    /// Creates a reader.
    public init() {}

    /// Reads the NDEF content.
    /// - Parameter channel: the channel to the tag.
    /// - Returns: `.message`, `.empty` (NDEF TLV of length 0) or `.absent` (no NDEF TLV, or not formatted).
    /// - Throws: `NFCTagError`: `tagRemoved` (never a partial message), `malformedCapabilityContainer`,
    ///   `malformedTLV` (with the tag byte address), `unexpectedStatus` (naming the command, block and byte),
    ///   `unexpectedResponse`, `readAccessDenied`.
    public func read(from channel: some CardChannel) async throws -> TagReading.Content {
        var blocks = Type5Blocks()
        guard let layout = try await Self.layout(&blocks, channel: channel) else { return .absent }
        guard layout.cc.isReadable else {
            throw NFCTagError(
                .readAccessDenied, offset: 1,
                "Type 5 capability container at byte 1: read access \(layout.cc.readAccess) forbids reading")
        }
        let ccSize = layout.cc.size
        let size = layout.dataAreaSize
        var dataArea = Array(layout.memory.dropFirst(ccSize))
        var walker = Type2TLVWalker(
            dataAreaSize: size, baseAddress: ccSize, label: "Type 5", hasControlTLVs: false)
        while true {
            switch try walker.step(dataArea, available: min(dataArea.count, size)) {
            case .need(let count):
                try await Self.fill(&dataArea, to: count, ccSize: ccSize, blocks: &blocks, channel: channel)
            case .noNDEF:
                return .absent
            case .ndef(_, _, length: 0):
                return .empty
            case .ndef(let start, let end, _):
                try await Self.fill(&dataArea, to: end, ccSize: ccSize, blocks: &blocks, channel: channel)
                return .message(walker.value(dataArea, start: start, end: end))
            }
        }
    }

    /// What block 0 (and 1) said: the CC, the memory read so far from byte 0, the data area size.
    struct Layout {
        var cc: Type5CapabilityContainer
        var memory: [UInt8]
        var dataAreaSize: Int
    }

    /// Reads block 0 (and block 1 for an eight-byte CC on 4-byte blocks) and parses the CC.
    /// - Returns: nil when the tag is not NDEF formatted.
    static func layout(_ blocks: inout Type5Blocks, channel: some CardChannel) async throws -> Layout? {
        var memory = try await blocks.read(block: 0, channel: channel)
        guard let announced = Type5CapabilityContainer.announcedSize(memory[...]) else { return nil }
        if memory.count < announced {
            memory += try await blocks.read(block: 1, channel: channel)
        }
        guard let cc = try Type5CapabilityContainer(memory[...]) else { return nil }
        let size = cc.dataAreaSize(blockSize: blocks.blockSize)
        guard size > 0 else {
            throw NFCTagError(
                .malformedCapabilityContainer, offset: cc.size == 4 ? 2 : 6,
                "Type 5 capability container at byte \(cc.size == 4 ? 2 : 6): MLEN \(cc.mlen) leaves no data area")
        }
        return Layout(cc: cc, memory: memory, dataAreaSize: size)
    }

    /// Reads blocks until `dataArea` (tag bytes from `ccSize` on) holds `count` bytes.
    static func fill(
        _ dataArea: inout [UInt8], to count: Int, ccSize: Int, blocks: inout Type5Blocks, channel: some CardChannel
    ) async throws {
        while dataArea.count < count {
            dataArea += try await blocks.read(block: (ccSize + dataArea.count) / blocks.blockSize, channel: channel)
        }
    }
}
