import ArgumentParser
import RouterCommands

/// `tagrouter console-password`: the hash of a console password.
struct ConsolePasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console-password",
        abstract: "Hash a password for the web console and print the line that sets it.",
        discussion: """
            Reads the password from the terminal without echo (twice), or the first line of standard input when \
            it is not a terminal, and prints passwordHash: "$2b$12$…" (bcrypt) to put in the console: block of a \
            rules file; a running router uses it from its next reload. With --viewer it prints viewerPasswordHash: \
            "…", the password of a read-only session. Exit status: 0 with the line, 1 for an empty password or two \
            that differ.
            """)

    @Flag(help: "Print viewerPasswordHash: the password signs in a viewer, who reads every page and changes nothing.")
    var viewer = false

    func run() throws {
        try ConsoleCommands.password(viewer: viewer).finish()
    }
}
