/// Where the NDEF TLV of a Type 2 data area is, or goes, and which bytes before and around it must be left
/// alone: what the writer needs to know before it writes (docs/tags.md, "How a tag is written").
///
/// The walk is the reader's, `Type2TLVWalker` (NULL, Lock Control, Memory Control, proprietary TLVs, the
/// terminator, one- and three-byte lengths, reserved bytes skipped), but it stops at the NDEF TLV's length byte:
/// the old message's length is not checked, so a tag whose message is broken can still be written over. Indices are data-area
/// indices (index 0 is tag byte 16); error offsets are tag byte addresses.
public struct Type2DataAreaLayout: Sendable, Hashable {
    /// What is at the place the NDEF TLV goes.
    public enum Slot: Sendable, Hashable {
        /// An NDEF TLV whose first length byte is at `lengthIndex` and holds `firstLengthByte` (0: empty).
        case ndef(lengthIndex: Int, firstLengthByte: UInt8)
        /// A terminator TLV (`FE`): the tag holds no NDEF, and nothing after it is read.
        case terminator
        /// The start of the NULL TLVs that run to the end of the data area: the tag holds no NDEF, and a reader
        /// walks on past this byte, so it must become a terminator before anything after it is written.
        case null
    }

    /// A Lock Control TLV's lock bits: `bits` bits from tag byte `address`.
    public struct LockArea: Sendable, Hashable {
        /// The tag byte address of the first lock byte.
        public var address: Int
        /// The number of lock bits.
        public var bits: Int
        /// The lock bytes' tag byte addresses.
        public var byteAddresses: Range<Int> { address..<(address + (bits + 7) / 8) }
    }

    /// What a walk needs or found.
    public enum Walk: Sendable, Hashable {
        /// Data-area bytes `0..<count` must be known to go on.
        case need(Int)
        /// The walk reached the NDEF TLV's place.
        case layout(Type2DataAreaLayout)
    }

    /// The data area size in bytes.
    public var dataAreaSize: Int
    /// The data-area index of the NDEF TLV's tag byte: where the new NDEF TLV is written.
    public var tlvStart: Int
    /// What is there now.
    public var slot: Slot
    /// The data-area ranges reserved by Lock and Memory Control TLVs before the NDEF TLV (sorted, merged).
    public var reservedRanges: [Range<Int>] { reserved.ranges }
    /// The lock bits Lock Control TLVs before the NDEF TLV announce.
    public var lockAreas: [LockArea]
    /// The reserved areas, for the planner.
    let reserved: Type2ReservedAreas

    /// The lock bits to set to make the tag read-only: those the Lock Control TLVs announce, or, when there are
    /// none and the data area is larger than 48 bytes, the NFC Forum default place right after the data area
    /// (one bit per 8 bytes beyond the first 48).
    public var dynamicLockAreas: [LockArea] {
        if !lockAreas.isEmpty { return lockAreas }
        guard dataAreaSize > 48 else { return [] }
        return [LockArea(address: 16 + dataAreaSize, bits: (dataAreaSize - 48 + 7) / 8)]
    }

    /// The number of data-area bytes from `tlvStart` to the end that are not reserved.
    public var usableBytes: Int {
        var count = 0
        var index = reserved.firstUsable(from: tlvStart)
        while index < dataAreaSize {
            count += 1
            index = reserved.firstUsable(from: index + 1)
        }
        return count
    }

    /// The largest NDEF message the data area holds at `tlvStart`: the usable bytes less the tag byte and a one-
    /// byte length (messages up to 254 bytes) or a three-byte length (up to 65534 bytes).
    public var capacity: Int {
        let afterTag = usableBytes - 1
        guard afterTag >= 256 else { return max(0, afterTag - 1) }
        return max(254, min(afterTag - 3, 0xFFFE))
    }

    /// Walks the data area known so far.
    /// - Parameters:
    ///   - known: the data area's first bytes, as read (`known.count` of them are valid).
    ///   - dataAreaSize: the data area size (the CC's size byte × 8).
    /// - Returns: `.need` with the number of bytes the walk needs known, or the layout.
    /// - Throws: `NFCTagError.malformedTLV` for a control TLV of a length other than 3, a TLV cut off by the end
    ///   of the data area or whose length runs past it; `insufficientCapacity` when the data area holds no place
    ///   for an NDEF TLV at all.
    public static func walk(_ known: [UInt8], dataAreaSize: Int) throws(NFCTagError) -> Walk {
        var walker = Type2TLVWalker(dataAreaSize: dataAreaSize)
        let stop = try walker.walk(known, available: known.count, stopsAtNDEFLength: true)
        let place: (start: Int, slot: Slot)
        switch stop {
        case .need(let count):
            return .need(count)
        case .ndefLength(let tlvStart, let lengthIndex):
            place = (tlvStart, .ndef(lengthIndex: lengthIndex, firstLengthByte: known[lengthIndex]))
        case .terminator(let index):
            place = (index, .terminator)
        case .end, .ndef:
            guard let start = walker.nullRunStart else {
                throw NFCTagError(
                    .insufficientCapacity, offset: 16 + dataAreaSize,
                    "Type 2 data area: its TLVs fill all \(dataAreaSize) bytes, leaving no place for an NDEF message")
            }
            place = (start, .null)
        }
        return .layout(Self(dataAreaSize, place.start, place.slot, walker.reserved, walker.lockAreas))
    }

    private init(
        _ dataAreaSize: Int, _ tlvStart: Int, _ slot: Slot, _ reserved: Type2ReservedAreas, _ lockAreas: [LockArea]
    ) {
        self.dataAreaSize = dataAreaSize
        self.tlvStart = tlvStart
        self.slot = slot
        self.reserved = reserved
        self.lockAreas = lockAreas
    }
}
