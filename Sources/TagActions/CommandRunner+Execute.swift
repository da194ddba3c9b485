import Subprocess
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CommandRunner {
    /// The variables a command gets: the inherited few (the desktop session's too for the opener), `TAG_*` from
    /// the event, then the action's own `env` on top.
    ///
    /// A `TAG_*` value that contains a NUL byte (possible in a stranger's Text record) cannot pass execve; that
    /// variable is set to the empty string instead. `TAG_EVENT_JSON` always carries the full event, escaped.
    func environment(for action: CommandAction, event: EventDocument?) -> [String: String] {
        var variables = inherited
        if action.usesDesktopSession { variables.merge(desktopSession) { _, session in session } }
        if let event {
            let fields: [(String, String?)] = [
                ("TAG_URI", event.uri), ("TAG_UID", event.tag.uid), ("TAG_READER", event.reader),
                ("TAG_TECH", event.tag.tech), ("TAG_RULE", event.rule), ("TAG_EVENT_ID", event.id),
                ("TAG_TEXT", event.firstText), ("TAG_EVENT_JSON", event.jsonString()),
            ]
            for (name, value) in fields {
                let value = value ?? ""
                variables[name] = value.utf8.contains(0) ? "" : value
            }
        }
        variables.merge(action.environment) { _, override in override }
        return variables
    }

    /// Launches, waits (enforcing the timeout) and reaps one command.
    func execute(_ action: CommandAction, environment: [String: String]) async throws -> CommandResult {
        let program = action.argv[0]
        let executable: Executable = program.contains("/") ? .path(FilePath(program)) : .name(program)
        let arguments = Arguments(executablePathOverride: program, remainingValues: Array(action.argv.dropFirst()))
        var variables: [Environment.Key: String] = [:]
        for (name, value) in environment {
            guard let key = Environment.Key(rawValue: name) else {
                throw ActionError(.invalidCommand, "command '\(program)': invalid environment variable name '\(name)'")
            }
            variables[key] = value
        }
        let teardown: [TeardownStep] = [
            .gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: killGrace),
            .send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .milliseconds(500)),
        ]
        var options = PlatformOptions()
        options.createSession = true
        options.teardownSequence = teardown
        let limit = outputLimit
        let timeout = action.timeout
        let clock = ContinuousClock()
        let start = clock.now
        let result: ExecutionResult<Captured, SequenceOutput, SequenceOutput>
        do {
            result = try await Subprocess.run(
                executable,
                arguments: arguments,
                environment: .custom(variables),
                workingDirectory: action.workingDirectory.map { FilePath($0) },
                platformOptions: options,
                input: .none,
                output: .sequence,
                error: .sequence
            ) { execution in
                try await withThrowingTaskGroup(of: Captured.Part.self) { group in
                    group.addTask { .standardOutput(try await Self.drain(execution.standardOutput, keeping: limit)) }
                    group.addTask { .standardError(try await Self.drain(execution.standardError, keeping: limit)) }
                    group.addTask {
                        try await Task.sleep(for: timeout)
                        await execution.teardown(using: teardown)
                        return .timedOut
                    }
                    var captured = Captured()
                    var streamsOpen = 2
                    while streamsOpen > 0, let part = try await group.next() {
                        captured.add(part)
                        if case .timedOut = part { continue }
                        streamsOpen -= 1
                    }
                    group.cancelAll()
                    // The timer may have fired between the last read and the cancellation.
                    while let part = try? await group.next() { captured.add(part) }
                    return captured
                }
            }
        } catch let error as SubprocessError {
            throw ActionError(.launchFailed, "command '\(program)' could not be started: \(error)")
        }
        let captured = result.closureResult
        let termination: CommandResult.Termination
        switch result.terminationStatus {
        case .exited(let code): termination = .exited(code)
        case .signaled(let signal): termination = .signaled(signal)
        }
        return CommandResult(
            termination: termination,
            duration: clock.now - start,
            standardOutput: captured.standardOutput.bytes,
            standardError: captured.standardError.bytes,
            isOutputTruncated: captured.standardOutput.isTruncated || captured.standardError.isTruncated,
            timedOut: captured.timedOut
        )
    }

    /// Reads a stream to its end, keeping the first `limit` bytes.
    static func drain(_ stream: SubprocessOutputSequence, keeping limit: Int) async throws -> OutputPrefix {
        var prefix = OutputPrefix(limit: limit)
        for try await buffer in stream {
            buffer.withUnsafeBytes { prefix.append($0) }
        }
        return prefix
    }
}

/// What the execution body collects.
struct Captured: Sendable {
    enum Part: Sendable {
        case standardOutput(OutputPrefix)
        case standardError(OutputPrefix)
        case timedOut
    }

    var standardOutput = OutputPrefix(limit: 0)
    var standardError = OutputPrefix(limit: 0)
    var timedOut = false

    mutating func add(_ part: Part) {
        switch part {
        case .standardOutput(let prefix): standardOutput = prefix
        case .standardError(let prefix): standardError = prefix
        case .timedOut: timedOut = true
        }
    }
}

/// The first `limit` bytes of a stream, and whether more followed.
struct OutputPrefix: Sendable {
    let limit: Int
    private(set) var bytes: [UInt8] = []
    private(set) var isTruncated = false

    init(limit: Int) {
        self.limit = limit
    }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let room = limit - bytes.count
        if chunk.count > room { isTruncated = true }
        if room > 0 { bytes.append(contentsOf: chunk.prefix(room)) }
    }
}
