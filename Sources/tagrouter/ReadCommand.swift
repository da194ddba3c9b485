import ArgumentParser
import Logging
import PCSC

/// `tagrouter read`: read one tag and print what it holds.
struct ReadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read one tag: UID, technology, ATR and NDEF records.",
        discussion: """
            Reads the tag already on a reader; with --wait, waits for one to be presented. Exit status: 0 when \
            the tag was read, 1 with one sentence on standard error when it could not be (no reader, no tag, tag \
            removed during the read, invalid NDEF, pcscd not running or refusing access).
            """)

    @Option(help: "Only readers whose name contains this text, or matches it with * and ? wildcards.")
    var reader: String?

    @Flag(help: "Wait until a tag is presented instead of failing when none is there.")
    var wait = false

    @Flag(help: "Print one JSON document: {\"reader\", \"uid\", \"tech\", \"atr\", \"records\"}.")
    var json = false

    func run() async throws {
        let logger = readerCommandsLogger()
        let pattern = reader.map(ReaderPattern.init(text:))
        do {
            let report =
                try await
                (wait ? waitAndRead(pattern: pattern, logger: logger) : readPresent(pattern: pattern, logger: logger))
            if json {
                print(try report.json())
            } else {
                report.lines.forEach { print($0) }
            }
        } catch let failure as ReadFailure {
            printError(failure.description)
            throw ExitCode.failure
        } catch let error as PCSCError {
            printError("\(error)")
            throw ExitCode.failure
        }
    }

    /// Reads the first tag already on a matching reader.
    private func readPresent(pattern: ReaderPattern?, logger: Logger) async throws -> TagReport {
        try await withContext(logger: logger) { context in
            let readers = try await context.readers()
            let matching = readers.filter { pattern?.matches($0) ?? true }
            guard !matching.isEmpty else {
                throw ReadFailure(noReaderSentence(readers: readers))
            }
            let statuses = try await context.status(of: matching)
            guard let status = statuses.first(where: \.isCardPresent) else {
                let names = matching.map { "\"\($0)\"" }.joined(separator: ", ")
                throw ReadFailure("no tag on \(names); present one or use --wait")
            }
            return try await TagReport.read(reader: status.reader, atr: status.atr, context: context)
        }
    }

    /// Waits for a tag on a matching reader (one already there counts) and reads it.
    private func waitAndRead(pattern: ReaderPattern?, logger: Logger) async throws -> TagReport {
        for await event in ReaderWatcher(logger: logger) {
            guard case .cardPresented(let reader, let atr, _) = event, pattern?.matches(reader) ?? true else {
                continue
            }
            return try await withContext(logger: logger) { context in
                try await TagReport.read(reader: reader, atr: atr, context: context)
            }
        }
        throw CancellationError()
    }

    /// Runs `body` with a fresh context, released afterwards whatever happens.
    private func withContext<T: Sendable>(
        logger: Logger, _ body: (PCSCContext) async throws -> T
    ) async throws -> T {
        let context = try await PCSCContext.establish(logger: logger)
        do {
            let result = try await body(context)
            await context.release()
            return result
        } catch {
            await context.release()
            throw error
        }
    }

    private func noReaderSentence(readers: [String]) -> String {
        guard let reader else { return "no reader found; is the reader plugged in and pcscd running?" }
        let known =
            readers.isEmpty ? "there is none" : "readers: " + readers.map { "\"\($0)\"" }.joined(separator: ", ")
        return "no reader matches \"\(reader)\" (\(known))"
    }
}
