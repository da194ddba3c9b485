#if canImport(Glibc)
    import Glibc
#endif

/// What `stat(2)` says of a file, as a Swift value: the one place TagRouter calls `stat`.
///
/// A module of its own, with no other import, because the C `struct stat` is ambiguous in modules that also see
/// SwiftNIO's or Dispatch's C modules (the web console's server packages): the compiler may take it for another C
/// module's copy of the struct, whose fields MemberImportVisibility then hides, depending on the order the modules
/// were loaded in. Here only Glibc's exists, and every other module sees this value instead.
public struct FileStatus: Sendable, Hashable {
    /// What kind of file it is.
    public enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other
    }

    /// The kind.
    public var kind: Kind
    /// The permission bits (`0o7777`).
    public var permissions: UInt32
    /// The owner's user id.
    public var owner: UInt32
    /// The group id.
    public var group: UInt32
    /// The size in bytes.
    public var size: Int64
    /// The device and inode: which file it is.
    public var device: UInt64
    /// The inode number.
    public var inode: UInt64
    /// The modification time: seconds and nanoseconds since 1970.
    public var modified: (seconds: Int, nanoseconds: Int) {
        (modifiedSeconds, modifiedNanoseconds)
    }

    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// The file a path names, following symbolic links (`stat(2)`); nil when it cannot be read (`errno` says why).
    /// - Parameter path: the path.
    public static func of(_ path: String) -> FileStatus? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStatus(status)
    }

    /// The path itself, a symbolic link not followed (`lstat(2)`); nil when it cannot be read.
    /// - Parameter path: the path.
    public static func ofLink(_ path: String) -> FileStatus? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return FileStatus(status)
    }

    private init(_ status: stat) {
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        permissions = UInt32(status.st_mode & 0o7777)
        owner = status.st_uid
        group = status.st_gid
        size = Int64(status.st_size)
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        modifiedSeconds = status.st_mtim.tv_sec
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
