/// A set of offsets `0...count` into a subject, one bit each, for the bit-parallel matcher (``Pattern``): the
/// positions from which the rest of a pattern matches the rest of the subject.
struct PositionSet: Equatable {
    /// Bit `i % 64` of word `i / 64` is offset `i`.
    private(set) var words: [UInt64]

    /// An empty set able to hold offsets `0...maximum`.
    /// - Parameter maximum: the largest offset (the subject's length).
    init(maximum: Int) {
        words = [UInt64](repeating: 0, count: maximum / 64 + 1)
    }

    /// Whether the set holds no offset.
    var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    /// Whether `offset` is in the set.
    func contains(_ offset: Int) -> Bool {
        words[offset >> 6] & (1 << UInt64(offset & 63)) != 0
    }

    /// Adds `offset`.
    mutating func insert(_ offset: Int) {
        words[offset >> 6] |= 1 << UInt64(offset & 63)
    }

    /// The largest offset in the set, if any.
    var last: Int? {
        guard let index = words.lastIndex(where: { $0 != 0 }) else { return nil }
        return index * 64 + 63 - words[index].leadingZeroBitCount
    }

    /// The set of offsets `i` such that `i + distance` is in this set: every offset moved down by `distance`.
    func shiftedDown(by distance: Int) -> PositionSet {
        var result = self
        let wordShift = distance >> 6
        let bitShift = UInt64(distance & 63)
        for index in result.words.indices {
            let low = index + wordShift
            guard low < words.count else {
                result.words[index] = 0
                continue
            }
            var word = words[low] >> bitShift
            if bitShift != 0, low + 1 < words.count { word |= words[low + 1] << (64 - bitShift) }
            result.words[index] = word
        }
        return result
    }

    /// Keeps only the offsets also in `other`.
    mutating func formIntersection(_ other: PositionSet) {
        for index in words.indices { words[index] &= other.words[index] }
    }

    /// Adds the offsets of `other`.
    mutating func formUnion(_ other: PositionSet) {
        for index in words.indices { words[index] |= other.words[index] }
    }

    /// Every offset from 0 to `offset`, both included.
    mutating func insertAll(through offset: Int) {
        let full = offset >> 6
        for index in 0..<full { words[index] = ~0 }
        let bits = UInt64(offset & 63) + 1
        words[full] |= bits == 64 ? ~0 : (1 << bits) - 1
    }
}
