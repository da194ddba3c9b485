/// "Did you mean" suggestions by edit distance.
public enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let limit = max(1, min(3, (word.count + 2) / 3))
        return best.1 <= limit ? best.0 : nil
    }

    /// Levenshtein distance, with an early exit for very long words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(64))
        let b = Array(b.prefix(64))
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
