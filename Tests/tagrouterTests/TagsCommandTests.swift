import Foundation
import RouterCommands
import Testing

/// `tagrouter tags` (docs/cli.md, "tagrouter tags") on a real rules folder: the list with hostile names escaped,
/// the edits in place with the comments kept, and every refusal in one sentence naming the file.
@Suite struct TagsCommandTests {
    static let tags = """
        # The door's fobs.
        version: 1
        tags:
          # Alice's blue fob.
          - name: alice
            uid: "04A1B2C3D4E580"
            groups: [staff]
            note: blue fob
          - name: "evil\\nname\\u001B[2J \\"quoted\\""
            uid: "0411"
            validUntil: 2020-01-31
          - name: "\(String(repeating: "x", count: 10_000))"
            uid: "0422"
            validFrom: 2999-01-01
        """

    /// A rules folder holding `tags` as tags.yaml, removed when the test ends.
    func withFolder(_ tags: String = Self.tags, _ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tags-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try tags.write(toFile: folder + "/tags.yaml", atomically: true, encoding: .utf8)
        try body(folder)
    }

    @Test("list prints one line per tag, its state today, hostile names escaped and quoted")
    func list() throws {
        try withFolder { folder in
            let output = TagsCommands.list(sources: [folder], json: false)
            #expect(output.status == 0)
            let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 3, "\(output.standardOutput)")
            #expect(lines[0] == #""alice"  04A1B2C3D4E580  active  groups="staff"  note="blue fob""#)
            #expect(lines[1] == #""evil\nname\u{1B}[2J \"quoted\""  0411  expired  valid=…..2020-01-31"#)
            #expect(lines[2].hasPrefix("\"xxxx") && lines[2].hasSuffix("\"  0422  not-yet-valid  valid=2999-01-01..…"))
            #expect(!output.standardOutput.contains("\u{1B}"))
            let json = TagsCommands.list(sources: [folder], json: true)
            let entries = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]]
            #expect(entries?.compactMap { $0["name"] as? String }[1] == "evil\nname\u{1B}[2J \"quoted\"")
            #expect(entries?.compactMap { $0["state"] as? String } == ["active", "expired", "not-yet-valid"])
        }
    }

    @Test("disable, enable and remove edit the file in place and keep its comments")
    func edits() throws {
        try withFolder { folder in
            let path = folder + "/tags.yaml"
            #expect(
                TagsCommands.edit(.disable, "alice", sources: [folder]).standardOutput
                    == "disabled \"alice\" (04A1B2C3D4E580) in \(path)\n")
            var text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("    note: blue fob\n    disabled: true\n"))
            #expect(text.hasPrefix("# The door's fobs.\n") && text.contains("  # Alice's blue fob.\n"))
            #expect(
                TagsCommands.list(sources: [folder], json: false).standardOutput.hasPrefix(
                    #""alice"  04A1B2C3D4E580  disabled"#))
            // By UID, in any case and with separators.
            #expect(TagsCommands.edit(.enable, "04:a1:b2:c3:d4:e5:80", sources: [folder]).status == 0)
            text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("    disabled: false\n"))
            #expect(TagsCommands.edit(.remove, "alice", sources: [folder]).status == 0)
            text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains("alice") && !text.contains("Alice's blue fob"))
            #expect(text.hasPrefix("# The door's fobs.\nversion: 1\ntags:\n  - name: \"evil"))
        }
    }

    @Test("an unknown name, a missing file and a broken file are one sentence naming the file")
    func refusals() throws {
        try withFolder { folder in
            let unknown = TagsCommands.edit(.disable, "mallory", sources: [folder])
            #expect(unknown.status == 1)
            #expect(unknown.errors == ["no tag named 'mallory' in \(folder)/tags.yaml"])
        }
        try withFolder("version: 1\ntags:\n  - name: bob\n    uid: \"zz\"\n") { folder in
            let broken = TagsCommands.list(sources: [folder], json: false)
            #expect(broken.status == 1)
            #expect(
                broken.errors == [
                    "the tags file is broken: \(folder)/tags.yaml:4:10: error: UID 'zz' is not hex (expected like "
                        + "04A1B2C3D4E580 or 04:a1:b2:c3); fix it first"
                ])
            try FileManager.default.removeItem(atPath: folder + "/tags.yaml")
            let missing = TagsCommands.edit(.remove, "bob", sources: [folder])
            #expect(missing.errors == ["there is no tags file at \(folder)/tags.yaml (tagrouter learn creates it)"])
        }
    }

    @Test("a tags.yaml that is a symbolic link stays one: the file it points to gets the change, in its own folder")
    func symlinkedFile() throws {
        try withFolder { folder in
            // tags.yaml -> ../<folder>-shared/current.yaml (relative) -> fobs.yaml, as a deployment tool may leave it.
            let shared = folder + "-shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: shared) }
            try FileManager.default.moveItem(atPath: folder + "/tags.yaml", toPath: shared + "/fobs.yaml")
            chmod(shared + "/fobs.yaml", 0o604)
            try FileManager.default.createSymbolicLink(
                atPath: shared + "/current.yaml", withDestinationPath: "fobs.yaml")
            let link = "../" + (shared as NSString).lastPathComponent + "/current.yaml"
            try FileManager.default.createSymbolicLink(atPath: folder + "/tags.yaml", withDestinationPath: link)

            let output = TagsCommands.edit(.disable, "alice", sources: [folder])
            #expect(output.status == 0, "\(output.errors)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/tags.yaml") == link)
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: shared + "/current.yaml") == "fobs.yaml")
            let text = try String(contentsOfFile: shared + "/fobs.yaml", encoding: .utf8)
            #expect(text.contains("    note: blue fob\n    disabled: true\n"))
            #expect(
                (try FileManager.default.attributesOfItem(atPath: shared + "/fobs.yaml")[.posixPermissions] as? Int)
                    == 0o604)
            // No temporary file is left in either folder.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: shared).sorted() == ["current.yaml", "fobs.yaml"])
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: folder)).contains { $0.hasSuffix(".tmp") })
            #expect(
                TagsCommands.list(sources: [folder], json: false).standardOutput.hasPrefix(
                    #""alice"  04A1B2C3D4E580  disabled"#))
        }
    }

    @Test("edits made at the same time are all kept: each takes the folder's lock and reads the other's file")
    func concurrentEdits() async throws {
        let entries = (0..<40).map { "  - name: tag\($0)\n    uid: \"04\(String(format: "%02X", $0))\"\n" }.joined()
        try withFolder("version: 1\ntags:\n" + entries) { folder in
            DispatchQueue.concurrentPerform(iterations: 40) { index in
                let edit: TagsCommands.Edit = index.isMultiple(of: 2) ? .disable : .remove
                _ = TagsCommands.edit(edit, "tag\(index)", sources: [folder])
            }
            let listed = TagsCommands.list(sources: [folder], json: true)
            let tags = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]]
            #expect(tags?.compactMap { $0["name"] as? String } == stride(from: 0, to: 40, by: 2).map { "tag\($0)" })
            #expect(tags?.allSatisfy { $0["state"] as? String == "disabled" } == true, "\(listed.standardOutput)")
        }
    }
}
