import Foundation
import TagRules
import Testing

@testable import RouterCommands

/// `tagrouter learn` once the tag is read (docs/cli.md, "tagrouter learn"): what `--replace` keeps, and the refusal
/// of a random ID. The waiting for a tag on a real reader is in EndToEndTests (DoorTests).
@Suite struct EnrollmentTests {
    /// A rules folder holding `tags` as tags.yaml, removed when the test ends.
    func withFolder(_ tags: String, _ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("learn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try tags.write(toFile: folder + "/tags.yaml", atomically: true, encoding: .utf8)
        try body(folder)
    }

    static let lostFob = """
        version: 1
        tags:
          # Alice's blue fob, reported lost.
          - name: alice
            uid: "04A1B2C3D4E580"
            groups: [staff]
            validFrom: 2026-01-01
            validUntil: 2026-12-31
            note: blue fob
            disabled: true
        """

    static let aliceUID: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]

    @Test("--replace of a disabled fob keeps it disabled, with its groups, days and note, unless options set them")
    func replaceKeepsState() throws {
        try withFolder(Self.lostFob) { folder in
            let enrolled = try Enrollment.enroll(
                Enrollment.Request(name: "alice-found", replace: true), uid: Self.aliceUID, reader: "R",
                tech: "type2", sources: [folder])
            #expect(enrolled.replaced && enrolled.uid == "04A1B2C3D4E580")
            var text = try String(contentsOfFile: folder + "/tags.yaml", encoding: .utf8)
            #expect(
                text == """
                    version: 1
                    tags:
                      # Alice's blue fob, reported lost.
                      - name: alice-found
                        uid: "04A1B2C3D4E580"
                        groups: [staff]
                        validFrom: 2026-01-01
                        validUntil: 2026-12-31
                        note: blue fob
                        disabled: true

                    """)
            #expect(TagsCommands.list(sources: [folder], json: false).standardOutput.contains("  disabled  "))

            // Options given replace what they name; the rest, `disabled` included, stays.
            _ = try Enrollment.enroll(
                Enrollment.Request(
                    name: "alice", groups: ["night"], validUntil: "2027-06-30", note: "new strap", replace: true),
                uid: Self.aliceUID, reader: "R", tech: "type2", sources: [folder])
            text = try String(contentsOfFile: folder + "/tags.yaml", encoding: .utf8)
            #expect(
                text.hasSuffix(
                    "  - name: alice\n    uid: \"04A1B2C3D4E580\"\n    groups: [night]\n    validFrom: 2026-01-01\n"
                        + "    validUntil: 2027-06-30\n    note: new strap\n    disabled: true\n"), "\(text)")

            // A day given that would end the validity before the day kept is refused, the file left as it was.
            #expect {
                try Enrollment.enroll(
                    Enrollment.Request(name: "alice", validFrom: "2028-01-01", replace: true), uid: Self.aliceUID,
                    reader: "R", tech: "type2", sources: [folder])
            } throws: { error in
                "\(error)".hasPrefix("--valid-from ends the validity before the validUntil 2027-06-30 kept from ")
            }
            #expect(try String(contentsOfFile: folder + "/tags.yaml", encoding: .utf8) == text)
        }
    }

    @Test("a new entry is written with what the options say, enabled")
    func newEntry() throws {
        try withFolder("version: 1\ntags:\n") { folder throws in
            _ = try Enrollment.enroll(
                Enrollment.Request(name: "bob", note: "spare"), uid: [0x04, 0x11, 0x22, 0x33], reader: "R",
                tech: "type2", sources: [folder])
            let text = try String(contentsOfFile: folder + "/tags.yaml", encoding: .utf8)
            #expect(text == "version: 1\ntags:\n  - name: bob\n    uid: \"04112233\"\n    note: spare\n")
        }
    }

    @Test("a random ID (4 bytes from 08) is refused in one sentence saying why and what to do; the file is left")
    func randomIDRefused() throws {
        try withFolder("version: 1\ntags:\n") { folder throws in
            #expect {
                try Enrollment.enroll(
                    Enrollment.Request(name: "phone"), uid: [0x08, 0x1F, 0x2E, 0x3D], reader: "Door", tech: "type4",
                    sources: [folder])
            } throws: { error in
                "\(error)"
                    == "the tag on \"Door\" uses a random ID (its UID 081F2E3D changes at every tap), so it cannot be "
                    + "enrolled by UID: admit it by its SUN message with a `sun` rule, or use a tag with Random ID "
                    + "turned off"
            }
            #expect(try String(contentsOfFile: folder + "/tags.yaml", encoding: .utf8) == "version: 1\ntags:\n")
            // A 7-byte UID from 08 is a fixed one.
            #expect(
                (try? Enrollment.enroll(
                    Enrollment.Request(name: "fixed"), uid: [0x08, 1, 2, 3, 4, 5, 6], reader: "Door", tech: "type2",
                    sources: [folder])) != nil)
        }
    }

    @Test("a tags.yaml link to a file not there yet is written through: learn creates that file, the link stays")
    func danglingLink() throws {
        try withFolder("") { folder in
            try FileManager.default.removeItem(atPath: folder + "/tags.yaml")
            try FileManager.default.createSymbolicLink(atPath: folder + "/tags.yaml", withDestinationPath: "real.yaml")
            _ = try Enrollment.enroll(
                Enrollment.Request(name: "bob"), uid: [0x04, 0x11, 0x22, 0x33], reader: "R", tech: "type2",
                sources: [folder])
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/tags.yaml") == "real.yaml")
            let text = try String(contentsOfFile: folder + "/real.yaml", encoding: .utf8)
            #expect(text.hasSuffix("tags:\n  - name: bob\n    uid: \"04112233\"\n"), "\(text)")
        }
    }

    @Test("doctor warns about the entries of the tags file that have a random ID, by file:line:col")
    func doctorWarnsAboutRandomIDs() throws {
        let text = "version: 1\ntags:\n  - name: phone\n    uid: \"081F2E3D\"\n  - name: fob\n    uid: \"04112233\"\n"
        let loaded = RuleSet.load(files: [("r/tags.yaml", text)], environment: [:], directory: "r")
        let tags = try #require(loaded.ruleSet?.tags)
        let checks = Doctor.randomIDChecks(tags)
        #expect(checks.map(\.status) == [.warning])
        #expect(
            checks.first?.detail
                == "1 enrolled tag has a random UID (4 bytes from 08, new at every tap) and will never match: "
                + "r/tags.yaml:3:11")
        #expect(Doctor.randomIDChecks(KnownTags()).isEmpty)
    }
}
