import BundleFormat
import FleetBundle
import Foundation
import Testing

/// Reading a rules folder for packing, and writing a bundle's files (docs/fleet.md, "The bundle file").
@Suite struct BundleFolderTests {
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "bundle-folder-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func readsTheYAMLFilesSorted() throws {
        let path = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("b".utf8).write(to: URL(fileURLWithPath: path + "/20-b.yaml"))
        try Data("a".utf8).write(to: URL(fileURLWithPath: path + "/10-a.yml"))
        try Data().write(to: URL(fileURLWithPath: path + "/.tags.lock"))
        let entries = try BundleFolder.read(path)
        #expect(entries.map(\.path) == ["10-a.yml", "20-b.yaml"])
        #expect(entries[0].content == Data("a".utf8))
    }

    @Test func refusesEverythingABundleCannotHoldAndSaysEach() throws {
        let path = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("a".utf8).write(to: URL(fileURLWithPath: path + "/10-a.yaml"))
        try FileManager.default.createSymbolicLink(atPath: path + "/20-link.yaml", withDestinationPath: "/etc/passwd")
        try FileManager.default.createDirectory(atPath: path + "/sub", withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/README.md"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/.hidden.yaml"))
        // learn's lock file is left out, not refused.
        try Data().write(to: URL(fileURLWithPath: path + "/.tags.lock"))
        let error = #expect(throws: BundleError.self) { try BundleFolder.read(path) }
        #expect(
            error?.message.split(separator: "\n") == [
                "\(path)/.hidden.yaml: '.hidden.yaml' is a hidden file",
                "\(path)/20-link.yaml: a symbolic link; a bundle holds regular files only",
                "\(path)/README.md: 'README.md' is not a .yaml or .yml file",
                "\(path)/sub: a subfolder; a bundle holds the folder's own files only",
            ])
    }

    @Test func writesAFolderWholeAndNeverOverAnother() throws {
        let path = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let entries = [SignedBundle.Entry(path: "10-a.yaml", content: Data("rules".utf8))]
        try BundleFolder.write(entries, to: path + "/v1")
        #expect(FileManager.default.contents(atPath: path + "/v1/10-a.yaml") == Data("rules".utf8))
        #expect(throws: BundleError.self) { try BundleFolder.write(entries, to: path + "/v1") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["v1"])
    }
}
