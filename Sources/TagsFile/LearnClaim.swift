public import Foundation
import TagRules

/// The readers `tagrouter learn` holds while it enrolls a tag, so that a router watching the same readers does
/// nothing for that tag (docs/cli.md, "tagrouter learn"): a small JSON file `.learning` in the rules folder, with
/// the readers' names and when the claim ends by itself (a killed `learn` leaves one that expires).
///
/// The rules folder is the place both sides know and that only who may change the rules can write.
public struct LearnClaim: Sendable, Hashable, Codable {
    /// The claimed readers' names.
    public var readers: [String]
    /// When the claim ends, if `learn` has not removed it before.
    public var until: Date

    /// The claim file's name in the rules folder.
    public static let fileName = ".learning"

    /// Creates a claim.
    /// - Parameters:
    ///   - readers: the readers' names.
    ///   - until: when it ends by itself.
    public init(readers: [String], until: Date) {
        self.readers = readers
        self.until = until
    }

    /// The folder that holds the tags file and the claim, for rules sources: the first folder among them, else the
    /// folder of a source file named `tags.yaml`; nil when there is neither.
    /// - Parameter sources: the rules files and folders.
    public static func rulesFolder(of sources: [String]) -> String? {
        for source in sources {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory), isDirectory.boolValue {
                return source
            }
        }
        let tagsFile = sources.first { ($0 as NSString).lastPathComponent == KnownTags.fileName }
        return tagsFile.map { path in
            let folder = (path as NSString).deletingLastPathComponent
            return folder.isEmpty ? "." : folder
        }
    }

    /// The claim in force in a folder now, if any: a missing, unreadable, malformed or expired file is none.
    /// - Parameters:
    ///   - folder: the rules folder.
    ///   - now: the time.
    public static func current(in folder: String, now: Date = Date()) -> LearnClaim? {
        guard let claim = read(path(in: folder)), claim.until > now else { return nil }
        return claim
    }

    /// The claim a file holds, expired or not; nil when it is missing, unreadable or malformed.
    static func read(_ path: String) -> LearnClaim? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(LearnClaim.self, from: $0) }
    }

    /// Writes this claim in a rules folder (replacing the file atomically), where a router watching the same
    /// readers finds it at its next tap on one of them.
    /// - Parameter folder: the rules folder.
    /// - Throws: Foundation's error when the file cannot be written.
    public func write(in folder: String) throws {
        try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: Self.path(in: folder)), options: .atomic)
    }

    /// The claim file's path in a folder.
    /// - Parameter folder: the rules folder.
    public static func path(in folder: String) -> String {
        folder.hasSuffix("/") ? folder + fileName : folder + "/" + fileName
    }
}
