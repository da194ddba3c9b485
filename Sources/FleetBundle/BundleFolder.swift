public import BundleFormat
import FileStatus
public import Foundation

/// A rules folder as a bundle sees it: its rules files and `tags.yaml`, read for packing and written when a host
/// takes a bundle (docs/fleet.md, "The bundle file").
public enum BundleFolder {
    /// Reads every `*.yaml` and `*.yml` file of a folder, refusing what a bundle cannot hold: a symlink, a
    /// subfolder, another kind of file, a name ``BundlePath`` does not allow, a file over 16 MiB. Every problem is
    /// reported, one per line. Hidden files that are not YAML (`.tags.lock`, `.learning`) are left out.
    /// - Parameter directory: the folder.
    /// - Returns: its files, sorted by name.
    /// - Throws: ``BundleError`` listing every entry refused (code of the first), or when the folder cannot be read.
    public static func read(_ directory: String) throws(BundleError) -> [SignedBundle.Entry] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw BundleError(.io, "\(directory): cannot read the folder (\(error.localizedDescription))")
        }
        var entries: [SignedBundle.Entry] = []
        var problems: [BundleError] = []
        for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            // The lock and claim files of `tagrouter learn` and `tags` (`.tags.lock`, `.learning`), an editor's swap
            // files: hidden files that the rules loader does not read either.
            if name.hasPrefix("."), !(name.hasSuffix(".yaml") || name.hasSuffix(".yml")) { continue }
            let path = (directory as NSString).appendingPathComponent(name)
            guard let status = FileStatus.ofLink(path) else {
                problems.append(BundleError(.io, "\(path): cannot be read"))
                continue
            }
            switch status.kind {
            case .symbolicLink:
                problems.append(BundleError(.path, "\(path): a symbolic link; a bundle holds regular files only"))
                continue
            case .directory:
                problems.append(BundleError(.path, "\(path): a subfolder; a bundle holds the folder's own files only"))
                continue
            case .regular:
                break
            case .other:
                problems.append(BundleError(.path, "\(path): not a regular file"))
                continue
            }
            if let problem = BundlePath.problem(name) {
                problems.append(BundleError(.path, "\(path): \(problem)"))
                continue
            }
            guard Int(status.size) <= BundleManifest.maximumFileSize else {
                problems.append(BundleError(.tooLarge, "\(path): \(status.size) bytes, more than 16 MiB"))
                continue
            }
            guard let content = FileManager.default.contents(atPath: path) else {
                problems.append(BundleError(.io, "\(path): cannot be read"))
                continue
            }
            entries.append(SignedBundle.Entry(path: name, content: content))
        }
        if let first = problems.first {
            throw BundleError(first.code, problems.map(\.message).joined(separator: "\n"))
        }
        return entries
    }

    /// Writes a bundle's files into a new folder, made under a temporary name beside it and renamed into place
    /// once every file is written and flushed: a crash leaves the folder whole or absent.
    /// - Parameters:
    ///   - entries: the files (their names already checked by ``BundlePath``).
    ///   - directory: the folder to make; it must not exist.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/io``.
    public static func write(_ entries: [SignedBundle.Entry], to directory: String) throws(BundleError) {
        let temporary = directory + ".partial-\(getpid())"
        do {
            try? FileManager.default.removeItem(atPath: temporary)
            try FileManager.default.createDirectory(
                atPath: temporary, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            for entry in entries {
                precondition(BundlePath.problem(entry.path) == nil, "a bundle's names are checked when it is read")
                try writeFile(entry.content, to: temporary + "/" + entry.path)
            }
            try FileManager.default.moveItem(atPath: temporary, toPath: directory)
        } catch let error as BundleError {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw BundleError(.io, "\(directory): cannot write the bundle's files (\(error.localizedDescription))")
        }
    }

    /// Writes a file durably: a new file (never through a symlink), flushed before it is closed.
    /// - Parameters:
    ///   - data: the content.
    ///   - path: the file, which must not exist.
    ///   - mode: its permissions.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/io``.
    public static func writeFile(_ data: Data, to path: String, mode: mode_t = 0o600) throws(BundleError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw BundleError(.io, "\(path): cannot create the file (\(String(cString: strerror(errno))))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            throw BundleError(.io, "\(path): cannot write the file (\(error.localizedDescription))")
        }
    }

    /// Replaces a file durably: written beside it under a temporary name, then renamed over it.
    /// - Parameters:
    ///   - data: the content.
    ///   - path: the file.
    ///   - mode: its permissions.
    /// - Throws: ``BundleError`` with code ``BundleError/Code/io``.
    public static func replaceFile(_ data: Data, at path: String, mode: mode_t = 0o600) throws(BundleError) {
        let temporary = path + ".partial-\(getpid())"
        unlink(temporary)
        try writeFile(data, to: temporary, mode: mode)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw BundleError(.io, "\(path): cannot replace the file (\(reason))")
        }
    }
}
