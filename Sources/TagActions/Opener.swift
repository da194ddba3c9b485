import Foundation

/// The desktop's URL opener (`xdg-open` on Linux, `open` on macOS), found once on `PATH`.
///
/// `open: "{uri}"` is `run: [opener, "{uri}"]` through the same ``CommandRunner``: the URI is one argument.
public struct Opener: Sendable, Hashable {
    /// The opener's absolute path.
    public var path: String

    /// Uses the opener at `path`.
    /// - Parameter path: an absolute path to an executable.
    public init(path: String) {
        self.path = path
    }

    /// The program names tried, in order, on this platform.
    public static var candidateNames: [String] {
        #if os(macOS)
            return ["open"]
        #else
            return ["xdg-open"]
        #endif
    }

    /// Finds the opener on `PATH`.
    /// - Parameter searchPath: a `PATH`-style list of directories; defaults to the process's `PATH`.
    /// - Returns: the opener.
    /// - Throws: ``ActionError`` (`noOpener`) naming the program and the directories searched.
    public static func find(searchPath: String? = nil) throws -> Opener {
        let path = searchPath ?? ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let directories = path.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        for name in candidateNames {
            for directory in directories {
                let candidate = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return Opener(path: candidate) }
            }
        }
        throw ActionError(
            .noOpener,
            "no URL opener: \(candidateNames.joined(separator: " or ")) not found on PATH (\(path)); "
                + "install xdg-utils or use a 'run' action"
        )
    }

    /// The command that opens `uri`.
    /// - Parameters:
    ///   - uri: the rendered URI; passed as one argument.
    ///   - timeout: how long the opener may take.
    /// - Returns: `[path, uri]` as a command.
    public func command(opening uri: String, timeout: Duration = .seconds(10)) -> CommandAction {
        var command = CommandAction(argv: [path, uri], timeout: timeout)
        command.usesDesktopSession = true
        return command
    }

    /// Opens `uri` through `runner`.
    /// - Parameters:
    ///   - uri: the rendered URI.
    ///   - event: the event, for the `TAG_*` environment.
    ///   - runner: the command runner (its concurrency limit applies).
    /// - Returns: how the opener ended.
    /// - Throws: what ``CommandRunner/run(_:event:)`` throws.
    @discardableResult
    public func open(_ uri: String, event: EventDocument? = nil, runner: CommandRunner) async throws -> CommandResult {
        try await runner.run(command(opening: uri), event: event)
    }
}
