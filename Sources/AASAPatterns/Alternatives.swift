/// The values of a substitution variable, indexed for matching: grouped by length and sorted within a group, so
/// the values found at a position of the subject cost a binary search per length instead of a comparison per
/// value. `$(lang)` has hundreds of values, and a pattern may name it many times: trying each value at each
/// position made a long hostile pattern take seconds (found by fuzz-aasa, docs/reliability-log.md).
struct Alternatives: Sendable, Hashable {
    /// The values of one length, sorted.
    private struct Group: Sendable, Hashable {
        let length: Int
        let values: [[UInt8]]
    }

    /// The groups, longest values first.
    private let groups: [Group]
    /// Bit `b` of word `b / 64` is set when a value of at least one byte starts with byte `b`.
    private let firstBytes: [UInt64]

    /// Indexes values (duplicates are harmless).
    /// - Parameter values: the normalized values.
    init(_ values: [[UInt8]]) {
        var byLength: [Int: Set<[UInt8]>] = [:]
        var firstBytes = [UInt64](repeating: 0, count: 4)
        for value in values {
            byLength[value.count, default: []].insert(value)
            if let first = value.first { firstBytes[Int(first >> 6)] |= 1 << UInt64(first & 63) }
        }
        self.groups = byLength.keys.sorted(by: >).map { length in
            Group(length: length, values: byLength[length, default: []].sorted { $0.lexicographicallyPrecedes($1) })
        }
        self.firstBytes = firstBytes
    }

    /// Whether `body` returns true for the length of some value found at `s[i...]`; lengths are tried longest
    /// first, and each at most once.
    func contains(at i: Int, in s: UnsafeBufferPointer<UInt8>, where body: (Int) -> Bool) -> Bool {
        let startsWell = i < s.count && firstBytes[Int(s[i] >> 6)] & (1 << UInt64(s[i] & 63)) != 0
        for group in groups {
            if group.length == 0 {
                if body(0) { return true }
            } else if startsWell, s.count - i >= group.length, Self.search(group.values, s, i, group.length),
                body(group.length)
            {
                return true
            }
        }
        return false
    }

    /// The length of the longest value found at `s[i...]`, if any.
    func longest(at i: Int, in s: UnsafeBufferPointer<UInt8>) -> Int? {
        var found: Int?
        _ = contains(at: i, in: s) { length in
            found = length
            return true
        }
        return found
    }

    /// For each length of value, the offsets of `s` where a value of that length starts (`0...s.count` for the
    /// empty value): what the bit-parallel matcher needs, found with one binary search per offset and length.
    /// - Parameter s: the subject.
    /// - Returns: one set per length, longest first.
    func starts(in s: UnsafeBufferPointer<UInt8>) -> [(length: Int, offsets: PositionSet)] {
        groups.map { group in
            var offsets = PositionSet(maximum: s.count)
            if group.length == 0 {
                offsets.insertAll(through: s.count)
            } else if s.count >= group.length {
                for i in 0...(s.count - group.length)
                where firstBytes[Int(s[i] >> 6)] & (1 << UInt64(s[i] & 63)) != 0
                    && Self.search(group.values, s, i, group.length)
                {
                    offsets.insert(i)
                }
            }
            return (group.length, offsets)
        }
    }

    /// Binary search for `s[i..<i + length]` among sorted values of that length.
    private static func search(_ values: [[UInt8]], _ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ length: Int) -> Bool {
        var low = 0
        var high = values.count
        while low < high {
            let middle = (low + high) / 2
            switch compare(values[middle], s, i, length) {
            case 0: return true
            case ..<0: low = middle + 1
            default: high = middle
            }
        }
        return false
    }

    /// The order of `value` against `s[i..<i + length]` (same length): negative, zero or positive.
    private static func compare(_ value: [UInt8], _ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ length: Int) -> Int {
        for offset in 0..<length where value[offset] != s[i + offset] {
            return Int(value[offset]) - Int(s[i + offset])
        }
        return 0
    }
}
