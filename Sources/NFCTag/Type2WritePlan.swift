/// The page writes that put an NDEF message on a Type 2 tag so that a tag taken away after any of them holds its
/// old message, an empty one or the new one (docs/tags.md, "How a tag is written"). Pure: worked out from the
/// data area read so far, so it is unit-tested and fuzzed without a tag.
///
/// The new NDEF TLV (`03`, the length, the message, then `FE` when there is room) goes where the old one was, or
/// where the terminator or the trailing NULL TLVs begin; TLVs before it and reserved bytes keep their places and
/// values. The order:
/// 1. a guard write that hides everything after the NDEF TLV's place: the page holding the old length byte
///    with that byte set to 0 (the tag reads as empty) when the old message is not empty, or the page holding
///    the TLV's place with an `FE` there when it holds a NULL TLV (the tag still reads as without NDEF);
/// 2. every other page of the new TLV, in address order;
/// 3. the commit: the page whose write makes the new message visible (the first length byte's page over an old
///    NDEF TLV, else the page of the TLV's tag byte).
/// Pages whose bytes are all known and already right are not written.
public struct Type2WritePlan: Sendable, Hashable {
    /// One `FF D6 00 <page> 04 <bytes>`.
    public struct PageWrite: Sendable, Hashable {
        /// The tag page (data-area index / 4 + 4).
        public var page: Int
        /// The four bytes.
        public var bytes: [UInt8]

        /// The command APDU.
        public var command: [UInt8] { [0xFF, 0xD6, UInt8(page >> 8), UInt8(page & 0xFF), 0x04] + bytes }
    }

    /// What planning needs or produced.
    public enum Step: Sendable, Hashable {
        /// Data-area bytes `0..<count` must be known to go on.
        case need(Int)
        /// The plan.
        case plan(Type2WritePlan)
    }

    /// The layout the plan writes into.
    public var layout: Type2DataAreaLayout
    /// The writes, in the order they must be sent.
    public var writes: [PageWrite]
    /// The data area as the plan sees it once every write is done: `known` with the new TLV in it, extended
    /// with zeros to the end of the last page written (bytes past `known` that no write covers are not the tag's).
    public var result: [UInt8]

    /// Plans writing `message`.
    /// - Parameters:
    ///   - message: the raw NDEF message bytes; empty writes an empty NDEF TLV.
    ///   - known: the data area's first bytes, as read.
    ///   - dataAreaSize: the data area size.
    /// - Returns: `.need` with the number of data-area bytes that must be known first, or the plan.
    /// - Throws: `NFCTagError`: `insufficientCapacity` (naming the message size and the most the tag holds),
    ///   `malformedTLV` for TLVs before the NDEF TLV that cannot be walked.
    public static func make(
        message: [UInt8], known: [UInt8], dataAreaSize: Int
    ) throws(NFCTagError) -> Step {
        let layout: Type2DataAreaLayout
        switch try Type2DataAreaLayout.walk(known, dataAreaSize: dataAreaSize) {
        case .need(let count): return .need(count)
        case .layout(let found): layout = found
        }
        let capacity = layout.capacity
        guard layout.usableBytes >= 2 else {
            throw NFCTagError(
                .insufficientCapacity, offset: 16 + layout.tlvStart,
                "Type 2 data area: \(layout.usableBytes) byte left after its TLVs at byte \(16 + layout.tlvStart), too few for even an empty NDEF message"
            )
        }
        guard message.count <= capacity else {
            throw NFCTagError(
                .insufficientCapacity, offset: 16 + layout.tlvStart,
                "the message is \(message.count) bytes; this Type 2 tag holds at most \(capacity) bytes")
        }

        var stream: [UInt8] = [0x03]
        if message.count < 0xFF {
            stream.append(UInt8(message.count))
        } else {
            stream += [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        }
        stream += message
        let reserved = layout.reserved
        var indices: [Int] = []
        indices.reserveCapacity(stream.count + 1)
        var index = reserved.firstUsable(from: layout.tlvStart)
        while indices.count < stream.count + 1, index < dataAreaSize {
            indices.append(index)
            index = reserved.firstUsable(from: index + 1)
        }
        if indices.count > stream.count { stream.append(0xFE) }  // the terminator, when there is room for it

        // Every page holding a byte of the new TLV; reserved bytes in them must be known to be written back.
        let pages = Set(indices.prefix(stream.count).map { $0 / 4 }).sorted()
        var needed = 0
        for page in pages {
            for position in (page * 4)..<(page * 4 + 4) where reserved.firstUsable(from: position) != position {
                needed = max(needed, position + 1)
            }
        }
        if needed > known.count { return .need(needed) }

        var result = known
        let end = (pages[pages.count - 1] + 1) * 4
        if result.count < end { result += [UInt8](repeating: 0, count: end - result.count) }
        for (byte, position) in zip(stream, indices) { result[position] = byte }
        func content(_ page: Int, in image: [UInt8]) -> [UInt8] {
            (0..<4).map { page * 4 + $0 < image.count ? image[page * 4 + $0] : 0 }
        }
        func isKnownAndEqual(_ page: Int, _ bytes: [UInt8], in image: [UInt8]) -> Bool {
            page * 4 + 4 <= image.count && content(page, in: image) == bytes
        }

        var writes: [PageWrite] = []
        let commitPage: Int
        var current = known
        switch layout.slot {
        case .ndef(let lengthIndex, let firstLengthByte):
            commitPage = lengthIndex / 4
            if firstLengthByte != 0 {
                var hidden = result
                hidden[lengthIndex] = 0x00
                writes.append(PageWrite(page: commitPage + 4, bytes: content(commitPage, in: hidden)))
            }
        case .terminator:
            commitPage = layout.tlvStart / 4
        case .null:
            commitPage = layout.tlvStart / 4
            var hidden = result
            hidden[layout.tlvStart] = 0xFE
            writes.append(PageWrite(page: commitPage + 4, bytes: content(commitPage, in: hidden)))
        }
        for write in writes {
            if current.count < (write.page - 4) * 4 + 4 {
                current += [UInt8](repeating: 0, count: (write.page - 4) * 4 + 4 - current.count)
            }
            current.replaceSubrange(((write.page - 4) * 4)..<((write.page - 4) * 4 + 4), with: write.bytes)
        }
        let known = writes.isEmpty ? known : current
        for page in pages where page != commitPage {
            let bytes = content(page, in: result)
            if !isKnownAndEqual(page, bytes, in: known) { writes.append(PageWrite(page: page + 4, bytes: bytes)) }
        }
        let commit = content(commitPage, in: result)
        if !isKnownAndEqual(commitPage, commit, in: known) {
            writes.append(PageWrite(page: commitPage + 4, bytes: commit))
        }
        return .plan(Type2WritePlan(layout: layout, writes: writes, result: result))
    }
}
