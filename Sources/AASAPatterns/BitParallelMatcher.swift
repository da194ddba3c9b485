/// Matches patterns with alternatives (`$(lang)`, `$(region)`, user variables) against one subject: the dynamic
/// programming over (element, offset) of ``Pattern``, computed one element at a time from the end, with the
/// offsets from which the rest of the pattern matches held as a ``PositionSet``. A literal byte, `?` or a class is
/// then a shift and a mask over 64 offsets at once; `*` is one pass over the offsets; a variable is a shift and a
/// mask per length of its values, its values looked up once per offset however often the pattern names it.
/// O(elements × bytes / 64) for most elements, and it stops as soon as no offset is left.
///
/// The table version took 0.5 s (sanitizer build) for a 1.8 KB pattern naming `$(lang)` and `$(region)` dozens of
/// times against a 1.7 KB subject, a live association file's worst case (docs/reliability-log.md, round 10).
struct BitParallelMatcher {
    private let s: UnsafeBufferPointer<UInt8>
    /// `UTF8Scalar.length` at each offset before the end.
    private let lengths: [UInt8]
    /// Whether every scalar is one byte long (so `*` reaches every later offset).
    private let singleBytes: Bool
    /// `lengthMasks[k - 1]`: the offsets where a scalar of `k` bytes starts.
    private let lengthMasks: [PositionSet]
    private var byteMasks: [UInt8: PositionSet] = [:]
    private var classMasks: [CharacterClass: PositionSet] = [:]
    /// The start offsets of each variable's values met so far (a pattern names few distinct variables).
    private var alternativeStarts: [(Alternatives, [(length: Int, offsets: PositionSet)])] = []

    /// Prepares matching against `s`.
    /// - Parameter s: the subject.
    init(_ s: UnsafeBufferPointer<UInt8>) {
        self.s = s
        var lengths = [UInt8](repeating: 1, count: s.count)
        var masks = [PositionSet](repeating: PositionSet(maximum: s.count), count: 4)
        for i in 0..<s.count {
            let length = UTF8Scalar.length(s, i)
            lengths[i] = UInt8(length)
            masks[length - 1].insert(i)
        }
        self.lengths = lengths
        self.singleBytes = masks[1...].allSatisfy(\.isEmpty)
        self.lengthMasks = masks
    }

    /// Whether `elements` match the whole subject.
    mutating func matches(_ elements: [Pattern.Element]) -> Bool {
        var row = PositionSet(maximum: s.count)
        row.insert(s.count)
        return run(elements, from: row).contains(0)
    }

    /// The offsets from which `elements` followed by the rest (matching from the offsets in `rest`) match.
    private mutating func run(_ elements: [Pattern.Element], from rest: PositionSet) -> PositionSet {
        var row = rest
        for element in elements.reversed() {
            row = step(element, before: row)
            if row.isEmpty { break }
        }
        return row
    }

    /// The offsets from which `element` matches and the rest matches after it.
    private mutating func step(_ element: Pattern.Element, before rest: PositionSet) -> PositionSet {
        switch element {
        case .byte(let byte):
            var row = rest.shiftedDown(by: 1)
            row.formIntersection(byteMask(byte))
            return row
        case .one:
            return oneScalar(before: rest)
        case .characterClass(let characterClass):
            var row = oneScalar(before: rest)
            row.formIntersection(classMask(characterClass))
            return row
        case .star:
            return star(before: rest)
        case .alternatives(let options):
            var row = PositionSet(maximum: s.count)
            for (length, offsets) in starts(of: options) {
                var moved = rest.shiftedDown(by: length)
                moved.formIntersection(offsets)
                row.formUnion(moved)
            }
            return row
        case .patterns(let options):
            var row = PositionSet(maximum: s.count)
            for option in options { row.formUnion(run(option, from: rest)) }
            return row
        }
    }

    /// One scalar of any length, then the rest.
    private func oneScalar(before rest: PositionSet) -> PositionSet {
        var row = PositionSet(maximum: s.count)
        for (index, mask) in lengthMasks.enumerated() where !mask.isEmpty {
            var moved = rest.shiftedDown(by: index + 1)
            moved.formIntersection(mask)
            row.formUnion(moved)
        }
        return row
    }

    /// Zero or more scalars, then the rest: every offset whose chain of scalar steps reaches an offset of `rest`.
    private func star(before rest: PositionSet) -> PositionSet {
        var row = PositionSet(maximum: s.count)
        if singleBytes {
            if let last = rest.last { row.insertAll(through: last) }
            return row
        }
        if rest.contains(s.count) { row.insert(s.count) }
        for i in stride(from: s.count - 1, through: 0, by: -1)
        where rest.contains(i) || row.contains(i + Int(lengths[i])) {
            row.insert(i)
        }
        return row
    }

    private mutating func byteMask(_ byte: UInt8) -> PositionSet {
        if let mask = byteMasks[byte] { return mask }
        var mask = PositionSet(maximum: s.count)
        for i in 0..<s.count where s[i] == byte { mask.insert(i) }
        byteMasks[byte] = mask
        return mask
    }

    private mutating func classMask(_ characterClass: CharacterClass) -> PositionSet {
        if let mask = classMasks[characterClass] { return mask }
        var mask = PositionSet(maximum: s.count)
        for i in 0..<s.count where characterClass.contains(UTF8Scalar.decode(s, i).0) { mask.insert(i) }
        classMasks[characterClass] = mask
        return mask
    }

    private mutating func starts(of options: Alternatives) -> [(length: Int, offsets: PositionSet)] {
        // Comparing the same variable's alternatives is quick: equal arrays share their storage.
        if let known = alternativeStarts.first(where: { $0.0 == options }) { return known.1 }
        let found = options.starts(in: s)
        alternativeStarts.append((options, found))
        return found
    }
}
