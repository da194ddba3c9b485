/// How a command ended. A non-zero exit is a result, not an error.
public struct CommandResult: Sendable, Hashable {
    /// How the process terminated.
    public enum Termination: Sendable, Hashable {
        /// It exited with this status.
        case exited(Int32)
        /// It was killed by this signal.
        case signaled(Int32)
    }

    /// How the process terminated.
    public var termination: Termination
    /// Wall-clock time from launch to reaping.
    public var duration: Duration
    /// The first bytes of standard output (at most the runner's output limit).
    public var standardOutput: [UInt8]
    /// The first bytes of standard error (at most the runner's output limit).
    public var standardError: [UInt8]
    /// Whether the output exceeded the limit and was cut.
    public var isOutputTruncated: Bool
    /// Whether the timeout fired and the process was terminated by the runner.
    public var timedOut: Bool

    /// Whether the command exited with status 0 in time.
    public var isSuccess: Bool { termination == .exited(0) && !timedOut }

    /// Creates a result.
    /// - Parameters:
    ///   - termination: how the process ended.
    ///   - duration: launch to reaping.
    ///   - standardOutput: the captured prefix of stdout.
    ///   - standardError: the captured prefix of stderr.
    ///   - isOutputTruncated: whether output was cut.
    ///   - timedOut: whether the timeout fired.
    public init(
        termination: Termination,
        duration: Duration,
        standardOutput: [UInt8] = [],
        standardError: [UInt8] = [],
        isOutputTruncated: Bool = false,
        timedOut: Bool = false
    ) {
        self.termination = termination
        self.duration = duration
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.isOutputTruncated = isOutputTruncated
        self.timedOut = timedOut
    }
}
