import Foundation

/// An NDEF message read from a file named on the command line (`write --file`, `emulate --file`, `decode --file`).
enum MessageFile {
    /// The most bytes a message file may hold: no tag holds more than 32 KiB.
    static let largest = 32_768

    /// Reads the file's raw bytes.
    /// - Parameters:
    ///   - path: the file.
    ///   - limit: the most bytes it may hold; ``largest`` by default, no limit when nil.
    /// - Returns: the bytes.
    /// - Throws: ``CommandFailure`` naming `--file` and the path when the file cannot be opened or is too large.
    static func bytes(at path: String, limit: Int? = largest) throws(CommandFailure) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("--file \(path): cannot be opened")
        }
        defer { try? handle.close() }
        guard let limit else { return [UInt8]((try? handle.readToEnd()) ?? Data()) }
        // Read one byte more than the limit to tell a file that is too large.
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else {
            throw CommandFailure("--file \(path): larger than \(limit) bytes, more than any tag holds")
        }
        return [UInt8](data)
    }
}
