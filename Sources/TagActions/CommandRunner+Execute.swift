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
        let timeout = action.timeout
        // The pipes are the runner's own, not Subprocess's `.sequence` (why: CommandRunner+Output.swift).
        let pipes = try CommandOutputPipes(limit: outputLimit, program: program)
        let clock = ContinuousClock()
        let start = clock.now
        let result: ExecutionResult<Bool, FileDescriptorOutput, FileDescriptorOutput>
        do {
            result = try await Subprocess.run(
                executable,
                arguments: arguments,
                environment: .custom(variables),
                workingDirectory: action.workingDirectory.map { FilePath($0) },
                platformOptions: options,
                input: .none,
                output: .fileDescriptor(
                    FileDescriptor(rawValue: pipes.standardOutputWriteEnd), closeAfterSpawningProcess: true),
                error: .fileDescriptor(
                    FileDescriptor(rawValue: pipes.standardErrorWriteEnd), closeAfterSpawningProcess: true)
            ) { execution in
                // The command ends when its process exits, not when its pipes reach end-of-file: a background
                // child (the browser `xdg-open` starts) inherits them and may hold them open for hours.
                pipes.startReading()
                let process = execution.processIdentifier
                switch await ProcessExitWatch.wait(for: process, timeout: timeout) {
                case .exited:
                    return false
                case .cancelled:
                    // Subprocess tears the process down when the body throws, then reaps it.
                    throw CancellationError()
                case .deadlinePassed:
                    await execution.teardown(using: teardown)
                    _ = await ProcessExitWatch.wait(for: process, timeout: nil)
                    return true
                }
            }
        } catch let error as SubprocessError {
            _ = await pipes.finish(grace: .zero)
            throw ActionError(.launchFailed, "command '\(program)' could not be started: \(error)")
        } catch {
            _ = await pipes.finish(grace: .zero)
            throw error
        }
        let duration = clock.now - start
        // What the command wrote just before it exited is in the pipes: read to end-of-file, but stop after the
        // grace period if a background child still holds them.
        let output = await pipes.finish(grace: Self.outputGrace)
        let termination: CommandResult.Termination
        switch result.terminationStatus {
        case .exited(let code): termination = .exited(code)
        case .signaled(let signal): termination = .signaled(signal)
        }
        return CommandResult(
            termination: termination,
            duration: duration,
            standardOutput: output.standardOutput.bytes,
            standardError: output.standardError.bytes,
            isOutputTruncated: output.standardOutput.isTruncated || output.standardError.isTruncated,
            timedOut: result.closureResult
        )
    }

    /// How long, once a command has exited, its output is still read while a background child holds the pipes.
    static let outputGrace: Duration = .milliseconds(100)
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
