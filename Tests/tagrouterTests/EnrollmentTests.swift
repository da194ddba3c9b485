import Foundation
import NDEF
import NFCTag
import SUNMessage
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

    @Test("a Random-ID tag is enrolled by the UID its SUN message proves, when a rule's keys verify it")
    func randomIDBySUN() throws {
        let metaKey = [UInt8](repeating: 0x11, count: 16)
        let fileKey = [UInt8](repeating: 0x22, count: 16)
        let proved: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
        let picc = try SUNCrypto.piccData(uid: proved, counter: 3, padding: [1, 2, 3, 4, 5], metaReadKey: metaKey)
        let head = "https://door.example/open?p=" + HexText.string(picc, uppercase: true) + "&m="
        // Stored as a writer stores it: https:// abbreviated, the MAC over the rest up to its own digits.
        let mac = try SUNCrypto.mac(fileReadKey: fileKey, uid: proved, counter: 3, input: Array(head.utf8.dropFirst(8)))
        let message = NDEFMessage(records: [URIRecord(uri: head + HexText.string(mac, uppercase: true)).record])
        let reading = TagReading(
            uid: [0x08, 0x1F, 0x2E, 0x3D], technology: .type4, content: .message(try message.encoded()))
        try withFolder("version: 1\ntags:\n") { folder in
            try """
            version: 1
            rules:
              - name: door
                match:
                  domains: [door.example]
                  sun: { piccData: p, mac: m, metaReadKey: "${META}", fileReadKey: "${FILE}" }
                run: [/bin/true]
            """.write(toFile: folder + "/door.yaml", atomically: true, encoding: .utf8)
            let keys = ["META": String(repeating: "11", count: 16), "FILE": String(repeating: "22", count: 16)]
            #expect(Enrollment.identity(of: reading, reader: "Door", sources: [folder], environment: keys) == proved)
            // Without the keys nothing is verified: the random UID, which enroll refuses.
            #expect(
                Enrollment.identity(of: reading, reader: "Door", sources: [folder], environment: [:])
                    == [0x08, 0x1F, 0x2E, 0x3D])
        }
    }
}
