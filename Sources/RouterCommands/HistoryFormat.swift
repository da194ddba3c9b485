public import ArgumentParser
public import StateStore

/// `history --format`: a table for a terminal, the JSON report, or an export (docs/cli.md, "tagrouter history").
public enum HistoryFormat: String, Sendable, Hashable, CaseIterable, ExpressibleByArgument {
    /// Taps and deliveries, newest first, one line each (the default).
    case table
    /// `{"deliveries": [...], "taps": [...]}` (as `--json`).
    case json
    /// The taps, oldest first, one JSON object per line.
    case jsonl
    /// The taps, oldest first, as CSV with a header row.
    case csv

    /// The export format of `jsonl` and `csv`; nil for the listings.
    public var export: TapExportFormat? { TapExportFormat(rawValue: rawValue) }
}

/// `history --outcome`: one of a tap's outcomes (`matched`, `ignored`, `suppressed`, `failed`, `dropped`,
/// `denied`).
public struct OutcomeArgument: Sendable, Hashable, ExpressibleByArgument, CustomStringConvertible {
    /// The outcome.
    public var outcome: TapRecord.Outcome

    /// Parses an outcome.
    /// - Parameter argument: its name.
    /// - Returns: nil when it names no outcome.
    public init?(argument: String) {
        guard let outcome = TapRecord.Outcome(rawValue: argument) else { return nil }
        self.outcome = outcome
    }

    /// The names an outcome may take, for the help text.
    public static var allValueStrings: [String] { TapRecord.Outcome.allCases.map(\.rawValue) }

    /// The outcome's name.
    public var description: String { outcome.rawValue }
}
