import Foundation

/// What one `tagrouter` subcommand produced: text for standard output, sentences for standard error, and the
/// exit status (docs/cli.md lists each command's). The command line only parses options and writes this out.
public struct CommandOutput: Sendable, Equatable {
    /// Written to standard output as it is.
    public var standardOutput: String
    /// Written to standard error, one line each.
    public var errors: [String]
    /// The exit status.
    public var status: Int32

    /// Creates an output.
    /// - Parameters:
    ///   - standardOutput: the text for standard output.
    ///   - errors: the lines for standard error.
    ///   - status: the exit status.
    public init(standardOutput: String = "", errors: [String] = [], status: Int32 = 0) {
        self.standardOutput = standardOutput
        self.errors = errors
        self.status = status
    }

    /// Lines for standard output, each ended by a newline.
    /// - Parameters:
    ///   - lines: the lines.
    ///   - status: the exit status.
    /// - Returns: the output.
    public static func lines(_ lines: [String], status: Int32 = 0) -> CommandOutput {
        CommandOutput(standardOutput: lines.map { $0 + "\n" }.joined(), status: status)
    }

    /// One sentence on standard error and exit status 1.
    /// - Parameter sentence: what went wrong.
    /// - Returns: the output.
    public static func failure(_ sentence: String) -> CommandOutput {
        CommandOutput(errors: [sentence], status: 1)
    }

    /// Writes the output: standard output first, then standard error.
    public func write() {
        if !standardOutput.isEmpty { FileHandle.standardOutput.write(Data(standardOutput.utf8)) }
        for line in errors { Terminal.printError(line) }
    }
}

/// A command that could not do its job; its description is the one sentence printed before exiting with status 1.
public struct CommandFailure: Error, CustomStringConvertible, Equatable {
    /// The sentence.
    public let description: String

    /// Creates a failure.
    /// - Parameter description: the sentence.
    public init(_ description: String) {
        self.description = description
    }
}

/// The terminal the command line writes to.
public enum Terminal {
    /// Writes one line to standard output at once (for commands that report progress while they run).
    /// - Parameter line: the line, without its newline.
    public static func print(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `text` whole to standard output, retrying after a short write (an export streams through this).
    /// - Parameter text: the text.
    /// - Throws: ``CommandFailure`` when standard output cannot be written (a closed pipe, a full disk).
    public static func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in
            guard var next = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = Foundation.write(1, next, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw CommandFailure("cannot write to standard output: \(String(cString: strerror(errno)))")
                }
                next += written
                left -= written
            }
        }
    }

    /// Writes one line to standard error.
    /// - Parameter line: the line, without its newline.
    public static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
