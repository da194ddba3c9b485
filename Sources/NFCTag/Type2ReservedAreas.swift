/// Byte ranges of a Type 2 data area that the TLV stream skips: lock and reserved bytes announced by Lock
/// Control and Memory Control TLVs. Indices are data-area indices (tag byte 16 is index 0).
struct Type2ReservedAreas: Hashable {
    /// Sorted, non-overlapping, non-adjacent ranges.
    private(set) var ranges: [Range<Int>] = []

    /// Adds the area a Lock Control (`isLock`) or Memory Control TLV value `PA BS PS` announces, clipped to
    /// the data area.
    /// - Parameters:
    ///   - value: the three value bytes.
    ///   - isLock: true for Lock Control (BS counts bits), false for Memory Control (BS counts bytes).
    ///   - dataAreaSize: the data area size.
    ///   - baseAddress: the tag byte address of data-area index 0 (16 on Type 2).
    mutating func add(pa: UInt8, bs: UInt8, ps: UInt8, isLock: Bool, dataAreaSize: Int, baseAddress: Int = 16) {
        let address = (Int(pa >> 4) << Int(ps & 0x0F)) + Int(pa & 0x0F)
        let count = bs == 0 ? 256 : Int(bs)
        let size = isLock ? (count + 7) / 8 : count
        let lower = max(address - baseAddress, 0)
        let upper = min(address - baseAddress + size, dataAreaSize)
        guard lower < upper else { return }
        insert(lower..<upper)
    }

    /// Inserts a range, merging it with those it touches.
    private mutating func insert(_ range: Range<Int>) {
        var merged = range
        var result: [Range<Int>] = []
        result.reserveCapacity(ranges.count + 1)
        var placed = false
        for existing in ranges {
            if existing.upperBound < merged.lowerBound {
                result.append(existing)
            } else if existing.lowerBound > merged.upperBound {
                if !placed {
                    result.append(merged)
                    placed = true
                }
                result.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        if !placed { result.append(merged) }
        ranges = result
    }

    /// The first index at or after `index` that is not reserved.
    func firstUsable(from index: Int) -> Int {
        var index = index
        for range in ranges where range.contains(index) {
            index = range.upperBound
        }
        return index
    }

    /// The index just past `count` usable bytes starting at `start` (reserved bytes in between not counted).
    func end(from start: Int, count: Int) -> Int {
        var position = start
        var remaining = count
        for range in ranges where range.upperBound > position {
            let usable = max(range.lowerBound - position, 0)
            if remaining <= usable { return position + remaining }
            remaining -= usable
            position = range.upperBound
        }
        return position + remaining
    }

    /// The usable bytes of `bytes[start..<end]`, reserved ones left out.
    func usableBytes(of bytes: [UInt8], from start: Int, to end: Int) -> [UInt8] {
        guard !ranges.isEmpty else { return Array(bytes[start..<end]) }
        var result: [UInt8] = []
        result.reserveCapacity(end - start)
        var position = start
        for range in ranges where range.upperBound > position && range.lowerBound < end {
            if range.lowerBound > position { result.append(contentsOf: bytes[position..<range.lowerBound]) }
            position = max(position, range.upperBound)
        }
        if position < end { result.append(contentsOf: bytes[position..<end]) }
        return result
    }
}
