/// The wait before each attempt to reach pcscd again: the first delay, doubling up to the longest.
struct RetryDelay: Sendable, Hashable {
    let first: Duration
    let longest: Duration
    private(set) var current: Duration

    init(first: Duration, longest: Duration) {
        self.first = first
        self.longest = longest
        self.current = first
    }

    /// The delay to wait now; the next one doubles, up to the longest.
    mutating func next() -> Duration {
        defer { current = Swift.min(current * 2, longest) }
        return current
    }

    /// pcscd answered: start again from the first delay.
    mutating func reset() {
        current = first
    }
}
