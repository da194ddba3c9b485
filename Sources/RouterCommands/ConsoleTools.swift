public import Console
import Foundation
import Logging
import NDEF
import StateStore
public import TagRules
import TagsFile

/// The console's Tags page on the code of `tagrouter learn` and `tagrouter tags` (docs/console.md, "Tags"): the
/// same checks, the same tags-file editor, the same write under the folder's lock.
public struct ConsoleTagsFile: ConsoleTagsEditing {
    let sources: [String]

    /// Creates the editor.
    /// - Parameter sources: `--rules`; the configured default when empty.
    public init(sources: [String]) {
        self.sources = sources
    }

    /// The rules folder.
    public var rulesFolder: String? { LearnClaim.rulesFolder(of: HostDefaults.rulesSources(sources)) }

    /// The tags file's path and entries.
    /// - Throws: ``Console/ConsoleError`` when it is broken or unreadable.
    public func list() throws(ConsoleError) -> (path: String, tags: [KnownTag]) {
        do {
            let file = try TagsFile(sources: sources)
            return (file.path, file.tags.entries)
        } catch {
            throw ConsoleError(error.description)
        }
    }

    /// Enrolls a tag as `tagrouter learn` does (a SUN tag with a random ID by the UID its message proves).
    /// - Parameters:
    ///   - entry: the entry.
    ///   - tag: the tag as read.
    ///   - replacing: replace the entry of the same UID (`--replace`).
    /// - Returns: what was done.
    /// - Throws: ``Console/ConsoleError`` saying why nothing was done.
    public func enroll(_ entry: TagEntryRequest, tag: EnrollingTag, replacing: Bool) throws(ConsoleError) -> String {
        let request = Enrollment.Request(
            name: entry.name, groups: entry.groups, validFrom: entry.validFrom, validUntil: entry.validUntil,
            note: entry.note, replace: replacing)
        do {
            try Enrollment.validate(request)
            guard var uid = HexText.bytes(tag.uid) else {
                throw CommandFailure("the tag's UID '\(PrintableText.line(tag.uid))' is not hex")
            }
            if KnownTags.isRandomID(tag.uid) {
                let event = TagEvent(uid: tag.uid, reader: tag.reader, tech: tag.tech ?? "", uri: tag.uri)
                uid = Enrollment.provedUID(of: event, sources: HostDefaults.rulesSources(sources)) ?? uid
            }
            let enrolled = try Enrollment.enroll(
                request, uid: uid, reader: tag.reader, tech: tag.tech ?? "", sources: sources)
            return "\(enrolled.replaced ? "Changed" : "Enrolled") \(TagsCommands.quoted(enrolled.name)) "
                + "(\(enrolled.uid)) in \(enrolled.file)."
        } catch {
            throw ConsoleError("\(error)")
        }
    }

    /// `tagrouter tags disable|enable|remove NAME`.
    /// - Parameters:
    ///   - edit: what to do.
    ///   - name: the entry's name.
    /// - Returns: what was done.
    /// - Throws: ``Console/ConsoleError`` saying why nothing was done.
    public func edit(_ edit: TagEdit, name: String) throws(ConsoleError) -> String {
        let change: TagsCommands.Edit =
            switch edit {
            case .disable: .disable
            case .enable: .enable
            case .remove: .remove
            }
        let output = TagsCommands.edit(change, name, sources: sources)
        guard output.status == 0 else { throw ConsoleError(output.errors.joined(separator: " ")) }
        return output.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The console's Rules page on `tagrouter check` and `tagrouter match --explain` themselves.
public struct ConsoleRules: ConsoleRuleTools {
    let sources: [String]
    let stateDirectory: String?

    /// Creates the tools.
    /// - Parameters:
    ///   - sources: `--rules`.
    ///   - stateDirectory: `--state-dir`.
    public init(sources: [String], stateDirectory: String?) {
        self.sources = sources
        self.stateDirectory = stateDirectory
    }

    /// `tagrouter check`.
    public func check() -> (text: String, hasErrors: Bool) {
        let output = RulesCommands.check(sources: sources, json: false, stateDirectory: stateDirectory)
        return (output.standardOutput, output.status != 0)
    }

    /// `tagrouter match --explain`.
    /// - Parameters:
    ///   - uri: the URI.
    ///   - uid: the UID.
    ///   - reader: the reader.
    public func explain(uri: String?, uid: String?, reader: String) -> String {
        let output = RulesCommands.match(
            .init(uri: uri, uid: uid, reader: reader, tech: "type2", texts: []), sources: sources, explain: true,
            json: false, stateDirectory: stateDirectory)
        return ([output.standardOutput] + output.errors).joined(separator: "\n")
    }
}

/// `tagrouter console-login` (docs/cli.md): a one-time sign-in link for the console of the router using a state
/// directory.
public enum ConsoleCommands {
    /// Issues a one-time link.
    /// - Parameter stateDirectory: `--state-dir`; the default when nil.
    /// - Returns: the link; status 1 with one sentence when no console runs there or the database cannot be written.
    public static func login(stateDirectory: String?) -> CommandOutput {
        let directory = HostDefaults.stateDirectory(stateDirectory)
        guard let url = ConsoleLogin.consoleURL(in: directory) else {
            return .failure(
                "no console is running with the state directory \(directory): start tagrouter run --console "
                    + "127.0.0.1:8788 (with the same --state-dir), or pass the router's --state-dir")
        }
        do {
            var logger = ReaderCommands.logger
            logger.logLevel = .error
            let database = try StateDatabase(directory: directory, logger: logger)
            let token = try ConsoleLogin.issue(in: database)
            let minutes = Int(ConsoleLogin.lifetime / 60)
            return CommandOutput(
                standardOutput: ConsoleLogin.link(token: token, consoleURL: url) + "\n",
                errors: ["this link signs one browser in, once, within \(minutes) minutes"])
        } catch {
            return .failure("\(error)")
        }
    }
}

extension ConsoleCommands {
    /// `tagrouter console-password [--viewer]`: reads a password (from the terminal without echo, asked twice;
    /// else the first line of standard input) and prints the `passwordHash:` line of the rules' `console:` block
    /// (`viewerPasswordHash:` with `viewer`: a session that reads and changes nothing).
    /// - Parameters:
    ///   - input: where the password is read: the terminal, or lines of standard input.
    ///   - viewer: print the viewer's line instead of the admin's.
    /// - Returns: the line; status 1 with one sentence for an empty password or two that differ.
    public static func password(input: PasswordInput = .standard, viewer: Bool = false) -> CommandOutput {
        let first = input.read("console password: ")
        guard let password = first, !password.isEmpty else { return .failure("the password is empty") }
        if input.isTerminal, input.read("again: ") != password { return .failure("the two passwords differ") }
        return CommandOutput(
            standardOutput:
                "\(viewer ? "viewerPasswordHash" : "passwordHash"): \"\(ConsolePassword.hash(password))\"\n",
            errors: ["put this line in the console: block of a rules file (docs/console.md, \"Signing in\")"])
    }

    /// Where `console-password` reads the password.
    public struct PasswordInput: Sendable {
        /// Whether it is a terminal (the password is then asked twice).
        public var isTerminal: Bool
        /// Reads one line after a prompt; nil at the end of the input.
        public var read: @Sendable (String) -> String?

        /// Creates an input.
        /// - Parameters:
        ///   - isTerminal: whether it is a terminal.
        ///   - read: reads one line after a prompt.
        public init(isTerminal: Bool, read: @escaping @Sendable (String) -> String?) {
            self.isTerminal = isTerminal
            self.read = read
        }

        /// Standard input: a terminal with its echo turned off while the password is typed, or a pipe.
        public static var standard: PasswordInput {
            let isTerminal = isatty(0) == 1
            return PasswordInput(isTerminal: isTerminal) { prompt in
                guard isTerminal else { return readLine(strippingNewline: true) }
                FileHandle.standardError.write(Data(prompt.utf8))
                var saved = termios()
                tcgetattr(0, &saved)
                var silent = saved
                silent.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(0, TCSANOW, &silent)
                defer {
                    tcsetattr(0, TCSANOW, &saved)
                    FileHandle.standardError.write(Data("\n".utf8))
                }
                return readLine(strippingNewline: true)
            }
        }
    }
}
