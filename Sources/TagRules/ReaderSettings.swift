public import AASAPatterns
public import ReaderFeedback

/// One entry of a rules file's `readers:` list: which readers it is for, their family, quiet mode and what they
/// show for each outcome (docs/rules.md, "`readers:`: what the reader shows").
public struct ReaderSettings: Sendable {
    /// The reader name pattern, as `match.reader` writes it.
    public var name: Pattern
    /// The family written with `family:`; nil: from the reader's name, or asked.
    public var family: ReaderFamily?
    /// Whether the reader's own beep on card detection is switched off.
    public var quiet: Bool
    /// The signals written under `feedback:`; the family's defaults fill in the outcomes not written.
    public var feedback: FeedbackPlan
    /// Where the entry is.
    public var location: SourceLocation

    /// Creates reader settings.
    /// - Parameters:
    ///   - name: the reader name pattern.
    ///   - family: the written family, if any.
    ///   - quiet: whether quiet mode is asked for.
    ///   - feedback: the written signals.
    ///   - location: where the entry is.
    public init(
        name: Pattern, family: ReaderFamily? = nil, quiet: Bool = false, feedback: FeedbackPlan = FeedbackPlan(),
        location: SourceLocation
    ) {
        self.name = name
        self.family = family
        self.quiet = quiet
        self.feedback = feedback
        self.location = location
    }

    /// The signals in force for a reader of `family`: the family's defaults, then what the entry writes.
    /// - Parameter family: the reader's family (the written one takes precedence).
    /// - Returns: the plan.
    public func plan(for family: ReaderFamily?) -> FeedbackPlan {
        let defaults = (self.family ?? family)?.defaultPlan ?? FeedbackPlan()
        return defaults.merging(feedback)
    }
}

extension RuleSet {
    /// The first `readers:` entry whose name pattern matches a reader (docs/rules.md, "`readers:`: what the
    /// reader shows"); nil: the reader shows nothing but what its firmware does by itself.
    /// - Parameter reader: the reader name.
    /// - Returns: the entry, or nil.
    public func readerSettings(for reader: String) -> ReaderSettings? {
        readers.first { $0.name.matches(reader) }
    }
}
