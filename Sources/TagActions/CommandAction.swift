/// A `run` action after its placeholders were rendered: what to execute, exactly.
public struct CommandAction: Sendable, Hashable {
    /// The argument vector; `argv[0]` is the program, a path or a name looked up on `PATH`.
    public var argv: [String]
    /// Extra environment variables (the rule's `env`); they override the inherited ones and the `TAG_*` set.
    public var environment: [String: String]
    /// The working directory, or `nil` for the router's own.
    public var workingDirectory: String?
    /// How long the command may run before it gets SIGTERM (then SIGKILL 2 s later).
    public var timeout: Duration
    /// Whether it also gets the desktop session's variables (`DISPLAY`, `WAYLAND_DISPLAY`, …): the URL opener.
    public var usesDesktopSession = false

    /// Creates an action.
    /// - Parameters:
    ///   - argv: the argument vector, program first.
    ///   - environment: extra environment variables.
    ///   - workingDirectory: the working directory, if any.
    ///   - timeout: the time limit; the default is 10 s (docs/rules.md, "`run`: commands").
    public init(
        argv: [String],
        environment: [String: String] = [:],
        workingDirectory: String? = nil,
        timeout: Duration = .seconds(10)
    ) {
        self.argv = argv
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.timeout = timeout
    }

    /// Checks what execve cannot carry: an empty argv, empty program, NUL bytes, `=` in a variable name.
    /// - Throws: ``ActionError`` with code `invalidCommand`, naming the element.
    func validate() throws {
        guard let program = argv.first, !program.isEmpty else {
            throw ActionError(.invalidCommand, "command has an empty argv or an empty program name")
        }
        for (index, argument) in argv.enumerated() where argument.utf8.contains(0) {
            throw ActionError(.invalidCommand, "command '\(program)': argument \(index) contains a NUL byte")
        }
        for (name, value) in environment {
            if name.isEmpty || name.utf8.contains(0) || name.contains("=") {
                throw ActionError(.invalidCommand, "command '\(program)': invalid environment variable name '\(name)'")
            }
            if value.utf8.contains(0) {
                throw ActionError(
                    .invalidCommand, "command '\(program)': environment variable \(name) contains a NUL byte")
            }
        }
        if let workingDirectory, workingDirectory.isEmpty || workingDirectory.utf8.contains(0) {
            throw ActionError(.invalidCommand, "command '\(program)': invalid working directory")
        }
    }
}
