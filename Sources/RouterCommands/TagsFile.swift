import FileStatus
import Foundation
import NDEF
import TagRules
import TagsFile

/// The tags file of a rules folder as `tagrouter learn` and `tagrouter tags` see it: its path, its text and its
/// validated entries (docs/doors.md, "The tags file"). Edits go through ``TagsFileEditor`` (text, so comments
/// stay) and are written whole to a temporary file that is renamed over the old one (over the file a symbolic
/// link points to, the link kept).
struct TagsFile {
    /// The rules folder.
    let folder: String
    /// `folder/tags.yaml`.
    let path: String
    /// The text, nil when the file does not exist yet.
    let text: String?
    /// The entries.
    let tags: KnownTags

    /// Reads and validates the tags file of the rules sources.
    /// - Parameter sources: `--rules`, or the default.
    /// - Throws: ``CommandFailure`` when there is no rules folder, or the file cannot be read or has errors.
    init(sources: [String]) throws(CommandFailure) {
        let sources = HostDefaults.rulesSources(sources)
        guard let folder = LearnClaim.rulesFolder(of: sources) else {
            throw CommandFailure(
                "no rules folder among \(sources.joined(separator: ", ")): create it or pass --rules with a folder")
        }
        self.folder = folder
        path = (folder.hasSuffix("/") ? folder : folder + "/") + KnownTags.fileName
        guard FileManager.default.fileExists(atPath: path) else {
            text = nil
            tags = KnownTags()
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("\(path) is not UTF-8 text")
        }
        self.text = text
        let result = RuleSet.load(files: [(path, text)], environment: [:], directory: folder)
        guard let ruleSet = result.ruleSet else {
            let first = result.diagnostics.first { $0.severity == .error }
            throw CommandFailure("the tags file is broken: \(first?.headline ?? path); fix it first")
        }
        tags = ruleSet.tags
    }

    /// Reads the tags file and runs `body` with it while holding the rules folder's lock (`.tags.lock`, flock(2)),
    /// so that two commands editing the file at once (`learn`, `tags disable`…) never lose one's change: each
    /// reads the file the other wrote.
    /// - Parameters:
    ///   - sources: `--rules`, or the default.
    ///   - body: what to do with the file, typically an edit and ``write(_:)``.
    /// - Returns: what `body` returns.
    /// - Throws: ``CommandFailure`` from reading the file, from taking the lock, or from `body`.
    static func editing<T>(sources: [String], _ body: (TagsFile) throws(CommandFailure) -> T) throws(CommandFailure)
        -> T
    {
        let folder = try TagsFile(sources: sources).folder
        let lockPath = folder + "/.tags.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot open the lock", lockPath) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw failure("cannot lock", lockPath) }
        defer { flock(descriptor, LOCK_UN) }
        return try body(try TagsFile(sources: sources))
    }

    /// The entry with a name, or else a UID, or a failure naming what was looked for.
    /// - Parameter nameOrUID: a name or a UID.
    func entry(_ nameOrUID: String) throws(CommandFailure) -> KnownTag {
        guard let entry = tags.entry(named: nameOrUID) else {
            throw CommandFailure("no tag named '\(PrintableText.line(nameOrUID))' in \(path)")
        }
        return entry
    }

    /// Writes new text: to a temporary file beside the file, synced, then renamed over it and the directory
    /// synced, keeping the file's mode, owner and group (a new file: mode 0640, group `tagrouter` when root writes
    /// it, else the folder's). A `tags.yaml` that is a symbolic link stays one: the file it points to (through
    /// every link) is the one replaced, by a temporary file in its own directory.
    /// - Parameter newText: the whole new text.
    /// - Throws: ``CommandFailure`` naming the file and the system's reason.
    func write(_ newText: String) throws(CommandFailure) {
        let target = try Self.resolvingLinks(path)
        let directory = Self.directory(of: target)
        let existing = FileStatus.of(target)
        let mode = mode_t(existing?.permissions ?? 0o640)
        let name = target.split(separator: "/").last.map(String.init) ?? KnownTags.fileName
        let temporary = directory + "/.\(name).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw Self.failure("cannot write", temporary) }
        let bytes = Array(newText.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        // The owner and group of the file it replaces. A new file (0640) gets the group the router reads it
        // with: `tagrouter`, the service's, when root writes it and that group exists (the rules folder is
        // root's); else the folder's. Failing that (not root), the file stays the caller's.
        if let existing {
            _ = fchown(descriptor, existing.owner, existing.group)
        } else if geteuid() == 0, let group = getgrnam("tagrouter") {
            _ = fchown(descriptor, 0, group.pointee.gr_gid)
        } else if let folder = FileStatus.of(directory) {
            _ = fchown(descriptor, geteuid(), folder.group)
        }
        _ = fchmod(descriptor, mode)
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced else {
            let failure = Self.failure("cannot write", temporary)
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, target) == 0 else {
            let failure = Self.failure("cannot replace", target)
            unlink(temporary)
            throw failure
        }
        // The rename is durable once the directory that holds it is on disk.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw Self.failure("cannot sync the folder", directory) }
        defer { close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else { throw Self.failure("cannot sync the folder", directory) }
    }

    /// The file a path names once every symbolic link on the way is followed (relative links from the link's
    /// folder); the path itself when it is not a link. A dangling link gives the path it points to, which the
    /// write then creates.
    /// - Throws: ``CommandFailure`` for a loop of links.
    static func resolvingLinks(_ path: String) throws(CommandFailure) -> String {
        var current = path
        for _ in 0..<40 {
            guard FileStatus.ofLink(current)?.kind == .symbolicLink else { return current }
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                throw failure("cannot read the link", current)
            }
            current = destination.hasPrefix("/") ? destination : directory(of: current) + "/" + destination
        }
        throw CommandFailure("\(path): too many levels of symbolic links")
    }

    /// The folder part of a path (`.` for a bare name).
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// An edit that cannot be made, as one sentence naming the file (and the place, when there is one).
    /// - Parameter error: the editor's error.
    func failure(_ error: TagsFileEditError) -> CommandFailure {
        CommandFailure(error.line > 0 ? "\(path):\(error)" : "\(path): \(error)")
    }

    private static func failure(_ what: String, _ path: String) -> CommandFailure {
        CommandFailure("\(what) \(path): \(String(cString: strerror(errno)))")
    }
}
