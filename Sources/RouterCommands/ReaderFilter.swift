import PCSC

/// Which readers a command uses (`--reader`, repeatable): every reader when no pattern is given, else those a
/// pattern matches (``ReaderPattern``). `run`, `read` and `write` share it (docs/cli.md, "Common options").
public struct ReaderFilter: Sendable {
    /// The patterns, as given.
    public var patterns: [ReaderPattern]

    /// Creates a filter.
    /// - Parameter patterns: the `--reader` patterns; every reader when empty.
    public init(_ patterns: [ReaderPattern] = []) {
        self.patterns = patterns
    }

    /// Whether the reader is used.
    /// - Parameter reader: the reader's name.
    public func accepts(_ reader: String) -> Bool {
        patterns.isEmpty || patterns.contains { $0.matches(reader) }
    }

    /// The sentence for no usable reader among those pcscd knows.
    /// - Parameter readers: the readers pcscd knows.
    /// - Returns: one sentence: no reader at all, or none that matches (naming the patterns and the readers).
    func noReaderSentence(readers: [String]) -> String {
        guard !patterns.isEmpty else { return "no reader found; is the reader plugged in and pcscd running?" }
        let known =
            readers.isEmpty ? "there is none" : "readers: " + readers.map { "\"\($0)\"" }.joined(separator: ", ")
        let wanted = patterns.map { "\"\($0.text)\"" }.joined(separator: " or ")
        return "no reader matches \(wanted) (\(known))"
    }

    /// The first card already on a used reader (`read` and `write` without `--wait`).
    /// - Parameter context: the pcsc-lite context.
    /// - Returns: the reader and the card's ATR.
    /// - Throws: ``CommandFailure`` when no reader is used or none holds a card; `PCSCError` from pcsc-lite.
    func presentCard(context: PCSCContext) async throws -> (reader: String, atr: [UInt8]) {
        let readers = try await context.readers()
        let matching = readers.filter(accepts)
        guard !matching.isEmpty else { throw CommandFailure(noReaderSentence(readers: readers)) }
        let statuses = try await context.status(of: matching)
        guard let status = statuses.first(where: \.isCardPresent) else {
            let names = matching.map { "\"\($0)\"" }.joined(separator: ", ")
            throw CommandFailure("no tag on \(names); present one or use --wait")
        }
        return (status.reader, status.atr)
    }

    /// Waits for a card on a used reader (one already there counts) and works with it (`--wait`).
    /// - Parameters:
    ///   - wait: wait for a card instead of taking the one already there.
    ///   - body: what to do with the card, given its reader, its ATR and a context.
    /// - Returns: what `body` returns.
    /// - Throws: what `presentCard(context:)` or `body` throw; `CancellationError` when the wait is cancelled.
    func withCard<T: Sendable>(
        wait: Bool,
        _ body: (_ reader: String, _ atr: [UInt8], _ context: PCSCContext) async throws -> T
    ) async throws -> T {
        let logger = ReaderCommands.logger
        guard wait else {
            return try await PCSCContext.withContext(logger: logger) { context in
                let (reader, atr) = try await presentCard(context: context)
                return try await body(reader, atr, context)
            }
        }
        guard let (reader, atr) = await ReaderWatcher(logger: logger).firstCard(where: accepts) else {
            throw CancellationError()
        }
        return try await PCSCContext.withContext(logger: logger) { context in
            try await body(reader, atr, context)
        }
    }
}
