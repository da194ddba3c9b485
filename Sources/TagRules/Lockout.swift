/// A door rule's `lockout:` (docs/doors.md, "Lockout"): after ``after`` refusals by the rule on one reader within
/// ``within``, that reader refuses every tag for ``duration`` (`{denied.reason}` `locked-out`), so that it cannot
/// be brute-forced with generated UIDs or SUN messages.
public struct Lockout: Sendable, Hashable {
    /// How many refusals lock the reader.
    public var after: Int
    /// The window the refusals are counted in.
    public var within: Duration
    /// How long the reader stays locked (`for`).
    public var duration: Duration

    /// Creates a lockout.
    /// - Parameters:
    ///   - after: how many refusals lock the reader (at least 1).
    ///   - within: the window they are counted in.
    ///   - duration: how long the reader stays locked.
    public init(after: Int, within: Duration, duration: Duration) {
        self.after = after
        self.within = within
        self.duration = duration
    }
}
