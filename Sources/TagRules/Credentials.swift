import Foundation

/// systemd credentials (systemd.exec(5), "Credentials"), one of the two places `${NAME}` values come from
/// (docs/rules.md, "Environment variables in rules"; docs/operations.md, "Secrets and credentials").
///
/// When the environment names a credentials directory (`CREDENTIALS_DIRECTORY`, which systemd sets for a unit
/// with `LoadCredential=` and the like) and that directory holds a file named `NAME`, the file's content is the
/// value of `${NAME}`, whatever the environment variable `NAME` says: a credential comes first. The files are
/// read at every load of the rules, so a reload reads them again.
enum Credentials {
    /// The environment variable naming the credentials directory.
    static let directoryVariable = "CREDENTIALS_DIRECTORY"

    /// The largest credential read: systemd's limit for all of a unit's credentials together.
    static let maximumSize = 1 << 20

    /// A credential file that exists but cannot be used. The message names the file, never its content.
    struct Failure: Error {
        let message: String
    }

    /// The credentials directory `environment` names, if any.
    static func directory(in environment: [String: String]) -> String? {
        guard let directory = environment[directoryVariable], !directory.isEmpty else { return nil }
        return directory
    }

    /// The credential `name`: the content of the file `name` in the credentials directory, one trailing newline
    /// removed.
    /// - Parameters:
    ///   - name: a valid `${NAME}` name (letters, digits and `_`: never a path).
    ///   - environment: the environment that may name the credentials directory.
    /// - Returns: the value, or `nil` when there is no credentials directory or no file of that name.
    /// - Throws: ``Failure`` when the file exists but cannot be read, is larger than ``maximumSize``, is not
    ///   UTF-8 text or holds a NUL byte.
    static func value(of name: String, environment: [String: String]) throws(Failure) -> String? {
        guard let directory = directory(in: environment) else { return nil }
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw Failure(message: "credential '\(name)' (\(path)) cannot be read: \(String(cString: strerror(code)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data: Data
        do {
            data = try handle.read(upToCount: maximumSize + 1) ?? Data()
        } catch {
            throw Failure(message: "credential '\(name)' (\(path)) cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else {
            throw Failure(message: "credential '\(name)' (\(path)) is larger than 1 MiB")
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw Failure(message: "credential '\(name)' (\(path)) is not UTF-8 text")
        }
        guard !text.utf8.contains(0) else {
            throw Failure(message: "credential '\(name)' (\(path)) holds a NUL byte")
        }
        if text.utf8.last == UInt8(ascii: "\n") { text.removeLast() }
        return text
    }
}
