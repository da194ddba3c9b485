import Foundation
import Testing
import Yams

@testable import TagsFile

@Suite struct TagsFileEditorTests {
    static let carol = TagsFileEntry(
        name: "carol", uid: "04C1C2C3", groups: ["staff", "night shift"], validFrom: "2026-12-01",
        validUntil: "2027-06-30", note: "red fob")

    /// A file as a user leaves it: a comment above each entry, comments after values, odd spacing and quoting,
    /// a blank line between entries, a block scalar holding a line that looks like a comment, and a comment at
    /// the end of the file.
    static let commented = """
        # Enrolled tags: edited by hand as well
        version: 1
        tags:
          # Alice, front desk
          - name: alice   # the first one
            uid: "04A1B2C3D4E580"
            groups: [staff]
            validFrom: 2026-12-01

          # Bob, nights
          - name: 'bob'
            uid: "04B2"  # replaced in May
            disabled: false   # back from leave
            note: |
              keeps the fob at the desk
              # not a comment: part of the note

          # Dave, visitor
          - name: dave
            uid: "04D4"
        # end of file

        """

    /// `commented` with `edits` made, each `old` text standing exactly once in it: an expected file that shows only
    /// what the edit changes, the rest being `commented` byte for byte.
    static func commented(_ edits: (old: String, new: String)...) throws -> String {
        var text = commented
        for edit in edits {
            try #require(text.components(separatedBy: edit.old).count == 2, "'\(edit.old)' stands once in the file")
            text = text.replacingOccurrences(of: edit.old, with: edit.new)
        }
        return text
    }

    static let alice = """
          # Alice, front desk
          - name: alice   # the first one
            uid: "04A1B2C3D4E580"
            groups: [staff]
            validFrom: 2026-12-01

        """
    static let bob = """
          - name: 'bob'
            uid: "04B2"  # replaced in May
            disabled: false   # back from leave
            note: |
              keeps the fob at the desk
              # not a comment: part of the note

        """
    static let dave = """
          # Dave, visitor
          - name: dave
            uid: "04D4"

        """

    /// The entries of `tags` in a text, read back with Yams as the project reads YAML.
    static func entries(in text: String) throws -> [Node] {
        let root = try #require(try Yams.compose(yaml: text, Resolver.basic, Constructor.default, .utf8))
        return Array(root.mapping?.first { $0.key.string == "tags" }?.value.sequence ?? [])
    }

    /// The names of the tags in a text.
    static func names(in text: String) throws -> [String] {
        try entries(in: text).map { value("name", of: $0)?.string ?? "(none)" }
    }

    /// The entry named `name` in a text.
    static func entry(_ name: String, in text: String) throws -> Node? {
        try entries(in: text).first { value("name", of: $0)?.string == name }
    }

    /// The value of a key of a mapping node.
    static func value(_ key: String, of node: Node?) -> Node? {
        node?.mapping?.first { $0.key.string == key }?.value
    }

    // MARK: New file

    @Test("A new file holds a comment, version 1 and the one entry, every field written")
    func newFile() throws {
        let text = TagsFileEditor.newFile(with: Self.carol)
        #expect(
            text == """
                # Enrolled NFC tags, written by `tagrouter learn`; you may edit this file by hand (comments are kept).
                version: 1
                tags:
                  - name: carol
                    uid: "04C1C2C3"
                    groups: [staff, night shift]
                    validFrom: 2026-12-01
                    validUntil: 2027-06-30
                    note: red fob

                """)
        let entry = try #require(try Self.entry("carol", in: text))
        #expect(Self.value("uid", of: entry)?.string == "04C1C2C3")
        #expect(Self.value("groups", of: entry)?.sequence?.compactMap(\.string) == ["staff", "night shift"])
        #expect(Self.value("validUntil", of: entry)?.string == "2027-06-30")
    }

    @Test("A new file leaves out groups, days and note when the entry has none")
    func newFileMinimal() {
        #expect(
            TagsFileEditor.newFile(with: TagsFileEntry(name: "eve", uid: "04E5")) == """
                # Enrolled NFC tags, written by `tagrouter learn`; you may edit this file by hand (comments are kept).
                version: 1
                tags:
                  - name: eve
                    uid: "04E5"

                """)
    }

    // MARK: Appending

    @Test("Appending goes after the last entry, before the comment at the end of the file; all else is kept")
    func appendKeepsComments() throws {
        let text = try TagsFileEditor.appending(Self.carol, to: Self.commented)
        let carol = """
              - name: carol
                uid: "04C1C2C3"
                groups: [staff, night shift]
                validFrom: 2026-12-01
                validUntil: 2027-06-30
                note: red fob

            """
        #expect(text == (try Self.commented((Self.dave, Self.dave + carol))))
        #expect(try Self.names(in: text) == ["alice", "bob", "dave", "carol"])
    }

    @Test("Appending goes before the comments and blank lines above a top-level key that follows tags")
    func appendBeforeFollowingKey() throws {
        let text = """
            tags:
              - name: alice
                uid: "04A1"
                note: "front desk,
                  # still the note"

              # about the version
            version: 1 # the format
            """
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "carol", uid: "04C1"), to: text) == """
                tags:
                  - name: alice
                    uid: "04A1"
                    note: "front desk,
                      # still the note"
                  - name: carol
                    uid: "04C1"

                  # about the version
                version: 1 # the format

                """)
    }

    @Test(
        "Appending to an empty tags rewrites its line to 'tags:' (keeping a comment) and indents the entry by two",
        arguments: [
            ("version: 1\ntags:\n", "version: 1\ntags:\n"),
            ("version: 1\ntags:", "version: 1\ntags:\n"),
            ("version: 1\ntags: []\n", "version: 1\ntags:\n"),
            ("version: 1\ntags: [ ]  # none yet\n", "version: 1\ntags: # none yet\n"),
            ("version: 1\ntags: ~\n", "version: 1\ntags:\n"),
            ("version: 1\ntags: null # later\n", "version: 1\ntags: # later\n"),
            ("version: 1\ntags: !!seq [] # typed\n", "version: 1\ntags: # typed\n"),
            ("version: 1\ntags:\n  ~\n", "version: 1\ntags:\n"),
        ])
    func appendToEmptyTags(text: String, head: String) throws {
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "carol", uid: "04C1"), to: text)
                == head + "  - name: carol\n    uid: \"04C1\"\n")
    }

    @Test("Appending to an empty tags followed by a comment and a key puts the entry right under tags")
    func appendToEmptyTagsBeforeKey() throws {
        let text = """
            tags: []

            # the format
            version: 1

            """
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "carol", uid: "04C1", groups: ["staff"]), to: text) == """
                tags:
                  - name: carol
                    uid: "04C1"
                    groups: [staff]

                # the format
                version: 1

                """)
    }

    @Test("Appending uses the indentation of the entries there: the '-' at 4 spaces, the keys after '-   '")
    func appendWithFourSpaces() throws {
        let text = """
            version: 1
            tags:
                -   name: alice
                    uid: "04A1"
                    # a comment inside the entry
                    groups: [staff]
            """
        #expect(
            try TagsFileEditor.appending(Self.carol, to: text) == """
                version: 1
                tags:
                    -   name: alice
                        uid: "04A1"
                        # a comment inside the entry
                        groups: [staff]
                    -   name: carol
                        uid: "04C1C2C3"
                        groups: [staff, night shift]
                        validFrom: 2026-12-01
                        validUntil: 2027-06-30
                        note: red fob

                """)
    }

    @Test("Appending to a sequence at the column of 'tags' keeps it there; the last line gets its line break")
    func appendToUnindentedSequence() throws {
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "b", uid: "0B"), to: "tags:\n- name: a\n  uid: \"0A\"")
                == "tags:\n- name: a\n  uid: \"0A\"\n- name: b\n  uid: \"0B\"\n")
    }

    @Test("Appending keeps the file's CR LF line breaks")
    func appendKeepsCRLF() throws {
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "b", uid: "0B"), to: "tags:\r\n  - name: a # A\r\n")
                == "tags:\r\n  - name: a # A\r\n  - name: b\r\n    uid: \"0B\"\r\n")
    }

    @Test("Appending writes a day that is not YYYY-MM-DD quoted, so that it reads back the same")
    func appendOddDay() throws {
        let entry = TagsFileEntry(name: "a", uid: "0A", validFrom: "2026-1-1", validUntil: "")
        let text = TagsFileEditor.newFile(with: entry)
        #expect(text.hasSuffix("    validFrom: \"2026-1-1\"\n    validUntil: \"\"\n"))
        #expect(try TagsFileEditor.appending(TagsFileEntry(name: "b", uid: "0B"), to: text).hasPrefix(text))
    }

    // MARK: Replacing

    @Test("Replacing an entry in the middle rewrites only its lines, keeping the comment above it")
    func replaceInTheMiddle() throws {
        let entry = TagsFileEntry(name: "robert", uid: "04B3", groups: ["night"])
        let text = try TagsFileEditor.replacing(entryNamed: "bob", with: entry, in: Self.commented)
        let robert = """
              - name: robert
                uid: "04B3"
                groups: [night]

            """
        #expect(text == (try Self.commented((Self.bob, robert))))
    }

    @Test("Replacing the last entry keeps the comment at the end of the file; the name may stay the same")
    func replaceLast() throws {
        let text = try TagsFileEditor.replacing(
            entryNamed: "dave", with: TagsFileEntry(name: "dave", uid: "04D5", note: "lost the old one"),
            in: Self.commented)
        #expect(
            text.hasSuffix(
                "  # Dave, visitor\n  - name: dave\n    uid: \"04D5\"\n    note: lost the old one\n# end of file\n"))
        #expect(try Self.names(in: text) == ["alice", "bob", "dave"])
    }

    @Test("Replacing with a disabled entry writes disabled: true, last, and the result reads back as the entry")
    func replaceKeepsDisabled() throws {
        let entry = TagsFileEntry(
            name: "bob", uid: "04B2", validFrom: "2026-01-01", validUntil: "2026-12-31", note: "lost", disabled: true)
        let text = try TagsFileEditor.replacing(entryNamed: "bob", with: entry, in: Self.commented)
        #expect(
            text.contains(
                "  # Bob, nights\n  - name: bob\n    uid: \"04B2\"\n    validFrom: 2026-01-01\n"
                    + "    validUntil: 2026-12-31\n    note: lost\n    disabled: true\n\n  # Dave, visitor\n"),
            "\(text)")
        let appended = try TagsFileEditor.appending(
            TagsFileEntry(name: "eve", uid: "04E5", disabled: true), to: Self.commented)
        #expect(appended.contains("  - name: eve\n    uid: \"04E5\"\n    disabled: true\n"))
    }

    @Test("Replacing refuses a new name that another tag has")
    func replaceWithTakenName() {
        #expect(throws: TagsFileEditError(line: 5, column: 3, message: "a tag named 'alice' exists already")) {
            try TagsFileEditor.replacing(
                entryNamed: "bob", with: TagsFileEntry(name: "alice", uid: "04B2"), in: Self.commented)
        }
    }

    // MARK: Disabling and enabling

    @Test("Disabling an entry with a 'disabled:' key changes only its value, keeping the spacing and comment")
    func disableExistingKey() throws {
        let text = try TagsFileEditor.settingDisabled(true, entryNamed: "bob", in: Self.commented)
        #expect(
            text
                == Self.commented.replacingOccurrences(
                    of: "    disabled: false   # back from leave\n", with: "    disabled: true   # back from leave\n"))
        #expect(Self.value("disabled", of: try Self.entry("bob", in: text))?.string == "true")
    }

    @Test("Disabling an entry without 'disabled:' adds it after the entry's last line, before the blank line")
    func disableAddsKey() throws {
        let text = try TagsFileEditor.settingDisabled(true, entryNamed: "alice", in: Self.commented)
        #expect(
            text
                == (try Self.commented(
                    ("    validFrom: 2026-12-01\n\n", "    validFrom: 2026-12-01\n    disabled: true\n\n"))))
    }

    @Test("Disabling the last entry adds the key before the comment at the end of the file")
    func disableLast() throws {
        let text = try TagsFileEditor.settingDisabled(true, entryNamed: "dave", in: Self.commented)
        #expect(text.hasSuffix("  - name: dave\n    uid: \"04D4\"\n    disabled: true\n# end of file\n"))
    }

    @Test("Disabling after a block scalar that keeps its final blank lines (|+) leaves the scalar whole")
    func disableAfterKeepingBlockScalar() throws {
        let text = "tags:\n  - name: a\n    note: |+\n      one\n\n\n  - name: b\n"
        let disabled = try TagsFileEditor.settingDisabled(true, entryNamed: "a", in: text)
        #expect(disabled == "tags:\n  - name: a\n    note: |+\n      one\n\n\n    disabled: true\n  - name: b\n")
        #expect(Self.value("note", of: try Self.entry("a", in: disabled))?.string == "one\n\n\n")
    }

    @Test("Enabling sets an existing 'disabled:' to false in place")
    func enable() throws {
        let text = "tags:\n  - name: a\n    disabled: yes # lost\n    note: x\n"
        #expect(
            try TagsFileEditor.settingDisabled(false, entryNamed: "a", in: text)
                == "tags:\n  - name: a\n    disabled: false # lost\n    note: x\n")
    }

    @Test("Enabling an entry that has no 'disabled:' key returns the text unchanged")
    func enableWithoutKey() throws {
        #expect(try TagsFileEditor.settingDisabled(false, entryNamed: "alice", in: Self.commented) == Self.commented)
    }

    @Test("Disabling an entry whose 'disabled:' has no value writes one after the colon")
    func disableEmptyValue() throws {
        #expect(
            try TagsFileEditor.settingDisabled(true, entryNamed: "a", in: "tags:\n- name: a\n  disabled: # ?\n")
                == "tags:\n- name: a\n  disabled: true # ?\n")
    }

    @Test("An entry whose '-' stands alone on its line, with an anchor and a comment, is disabled and removed")
    func dashAloneOnItsLine() throws {
        let text = """
            tags:
              - # the spare
                &spare
                name: spare
                uid: "05"
              - name: b
                uid: "0B"

            """
        #expect(
            try TagsFileEditor.settingDisabled(true, entryNamed: "spare", in: text) == """
                tags:
                  - # the spare
                    &spare
                    name: spare
                    uid: "05"
                    disabled: true
                  - name: b
                    uid: "0B"

                """)
        #expect(try TagsFileEditor.removing(entryNamed: "spare", from: text) == "tags:\n  - name: b\n    uid: \"0B\"\n")
    }

    @Test("An edit that would change another entry (through an alias) is refused, the text left alone")
    func aliasedValueIsRefused() {
        let text = "tags:\n  - name: a\n    disabled: &off false\n  - name: b\n    disabled: *off\n"
        let message = "cannot set 'disabled' of the tag without changing other parts of the file; edit the file by hand"
        #expect(throws: TagsFileEditError(line: 4, column: 3, message: message)) {
            try TagsFileEditor.settingDisabled(true, entryNamed: "b", in: text)
        }
    }

    // MARK: Removing

    @Test("Removing the first entry takes the comment directly above it; the blank line after it goes too")
    func removeFirst() throws {
        #expect(
            try TagsFileEditor.removing(entryNamed: "alice", from: Self.commented)
                == (try Self.commented((Self.alice + "\n", ""))))
    }

    @Test("Removing a middle entry takes its comment and lines, keeps the comment above the next entry")
    func removeMiddle() throws {
        #expect(
            try TagsFileEditor.removing(entryNamed: "bob", from: Self.commented)
                == (try Self.commented(("  # Bob, nights\n" + Self.bob + "\n", ""))))
    }

    @Test("Removing the last entry keeps the comment at the end of the file")
    func removeLast() throws {
        #expect(
            try TagsFileEditor.removing(entryNamed: "dave", from: Self.commented)
                == (try Self.commented((Self.dave, ""))))
    }

    @Test("Removing the only entry leaves an empty 'tags:', to which an entry can be appended again")
    func removeOnly() throws {
        let text = "version: 1\ntags:\n  # the only one\n  - name: a\n    uid: \"0A\"\n# end\n"
        let removed = try TagsFileEditor.removing(entryNamed: "a", from: text)
        #expect(removed == "version: 1\ntags:\n# end\n")
        #expect(try Self.names(in: removed) == [])
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "b", uid: "0B"), to: removed)
                == "version: 1\ntags:\n  - name: b\n    uid: \"0B\"\n# end\n")
    }

    // MARK: Hostile names

    static let hostileNames: [String] = [
        "line\nbreak", "tab\there", "nul\u{0}byte", "say \"hi\"", "back\\slash", "key: value", "hash #tag",
        "- dash", "yes", "No", "on", "null", "~", "123", "0x1F", "1e3", "2026-01-01", ".inf", "@home", "", " padded ",
        "it's", "[x]", "{y}", "a, b", "*alias", "&anchor", "!tag", "%directive", "|", ">", "?", "del\u{7F}",
        "c1\u{85}next\u{9F}", "ls\u{2028}ps\u{2029}", "bom\u{FEFF}", "Zoë Weiß", "日本語", "🔑 key", "e\u{301}",
        "cr\r\nlf",
    ]

    @Test("A hostile name is written so that YAML reads back exactly the same name", arguments: hostileNames)
    func hostileNameRoundTrips(name: String) throws {
        try Self.checkRoundTrip(of: name)
    }

    @Test("A 10,000-character name of YAML syntax reads back the same")
    func longNameRoundTrips() throws {
        let name = String(repeating: "ab: #", count: 2000)
        #expect(name.count == 10_000)
        try Self.checkRoundTrip(of: name)
    }

    /// Appends an entry with `name` as its name, group and note, reads it back, and disables and removes it by
    /// that name.
    static func checkRoundTrip(of name: String) throws {
        let entry = TagsFileEntry(name: name, uid: "04", groups: [name], note: name)
        let text = try TagsFileEditor.appending(entry, to: Self.commented)
        #expect(try Self.names(in: text) == ["alice", "bob", "dave", name])
        let node = try #require(try Self.entry(name, in: text))
        #expect(Self.value("groups", of: node)?.sequence?.compactMap(\.string) == [name])
        #expect(Self.value("note", of: node)?.string == name)
        #expect(try Self.names(in: TagsFileEditor.newFile(with: entry)) == [name])
        // Found again by name for every edit.
        let disabled = try TagsFileEditor.settingDisabled(true, entryNamed: name, in: text)
        #expect(Self.value("disabled", of: try Self.entry(name, in: disabled))?.string == "true")
        #expect(try TagsFileEditor.removing(entryNamed: name, from: text) == Self.commented)
    }

    @Test(
        "scalar writes safe text plain and anything else double-quoted and escaped",
        arguments: [
            ("alice", "alice"), ("front door 2", "front door 2"), ("a.b-c_d@e/f", "a.b-c_d@e/f"),
            ("Zoë", "Zoë"), ("yes", "\"yes\""), ("OFF", "\"OFF\""), ("123", "\"123\""),
            ("2026-01-01", "\"2026-01-01\""), ("-x", "\"-x\""), ("a: b", "\"a: b\""), ("a #b", "\"a #b\""),
            (" a", "\" a\""), ("", "\"\""), ("a\"b\\c", "\"a\\\"b\\\\c\""), ("a\nb\tc", "\"a\\nb\\tc\""),
            ("\u{0}\u{1B}\u{7F}\u{85}", "\"\\x00\\x1B\\x7F\\x85\""), ("\u{2028}\u{FEFF}", "\"\\u2028\\uFEFF\""),
            ("🔑", "\"🔑\""),
        ])
    func scalar(text: String, written: String) {
        #expect(TagsFileEditor.scalar(text) == written)
    }

    // MARK: Errors

    @Test(
        "A text this editor cannot edit is refused with the place of the problem",
        arguments: [
            (
                "tags:\n  - name: \"a\n", 3, 1,
                "YAML syntax error: found unexpected end of stream while scanning a quoted scalar"
            ),
            (
                "version: 1\ntags:\n  - name: a: b\n", 3, 12,
                "YAML syntax error: mapping values are not allowed in this context"
            ),
            ("tags: 1\ntags: 2\n", 1, 1, "duplicate key 'tags' in a mapping"),
            ("", 0, 0, "the file is empty: it needs 'version' and 'tags'"),
            ("# only a comment\n", 0, 0, "the file is empty: it needs 'version' and 'tags'"),
            ("- name: a\n", 1, 1, "the file must be a mapping with 'version' and 'tags', not a list"),
            ("{version: 1, tags: []}\n", 1, 1, "the file is written in flow style ({…}); write it in block style"),
            ("version: 1\n", 1, 1, "the file has no 'tags' key"),
            ("version: 1\ntags: {}\n", 2, 7, "'tags' must be a list of tags, not a mapping"),
            ("version: 1\ntags: none\n", 2, 7, "'tags' must be a list of tags, not a string"),
            (
                "version: 1\ntags: [{name: a, uid: \"0A\"}]\n", 2, 7,
                "'tags' is written in flow style ([…]); write it in block style, one '- name: …' entry after another"
            ),
            ("tags:\n  - name: a\n  - uid: \"0B\"\n", 3, 3, "a tag entry has no 'name'"),
            ("tags:\n  - name: a\n  -   name:\n", 3, 3, "a tag entry has no 'name'"),
            ("tags:\n  - name: a\n  - b\n", 3, 3, "a tag entry must be a mapping (name: …, uid: …), not a string"),
            ("x: &e {name: a}\ntags:\n  - *e\n", 2, 1, "every entry of 'tags' must be written out, not an alias"),
            ("x: &t []\ntags: *t\n", 2, 1, "'tags' must be written out here, not an alias"),
        ])
    func appendErrors(text: String, line: Int, column: Int, message: String) {
        let expected = TagsFileEditError(line: line, column: column, message: message)
        #expect(throws: expected) { try TagsFileEditor.appending(TagsFileEntry(name: "carol", uid: "0C"), to: text) }
        #expect(throws: expected) { try TagsFileEditor.removing(entryNamed: "carol", from: text) }
    }

    @Test("Appending refuses a name that a tag has already")
    func appendTakenName() {
        #expect(throws: TagsFileEditError(line: 3, column: 3, message: "a tag named 'carol' exists already")) {
            try TagsFileEditor.appending(Self.carol, to: "tags:\n  # first\n  - name: carol\n")
        }
    }

    @Test("Editing a tag that is not there, or written in flow style, or named twice, is refused")
    func editErrors() {
        #expect(throws: TagsFileEditError(line: 0, column: 0, message: "no tag named 'carol'")) {
            try TagsFileEditor.removing(entryNamed: "carol", from: Self.commented)
        }
        #expect(throws: TagsFileEditError(line: 0, column: 0, message: "no tag named \"a\\nb\"")) {
            try TagsFileEditor.settingDisabled(true, entryNamed: "a\nb", in: Self.commented)
        }
        let flow = "tags:\n  - name: a\n  - {name: b, uid: \"0B\"}\n"
        let message = "the tag 'b' is written in flow style ({…}); write it in block style to edit it"
        #expect(throws: TagsFileEditError(line: 3, column: 3, message: message)) {
            try TagsFileEditor.settingDisabled(true, entryNamed: "b", in: flow)
        }
        #expect(throws: TagsFileEditError(line: 3, column: 3, message: message)) {
            try TagsFileEditor.removing(entryNamed: "b", from: flow)
        }
        let twice = "tags:\n  - name: a\n  - name: a\n"
        #expect(throws: TagsFileEditError(line: 3, column: 3, message: "two tags are named 'a' (lines 2 and 3)")) {
            try TagsFileEditor.removing(entryNamed: "a", from: twice)
        }
        let multiLine = "tags:\n  - name: a\n    disabled: |\n      true\n"
        let oneLine = "write 'disabled:' and its value on one line to change it"
        #expect(throws: TagsFileEditError(line: 3, column: 15, message: oneLine)) {
            try TagsFileEditor.settingDisabled(false, entryNamed: "a", in: multiLine)
        }
    }

    @Test("An error reads 'line:column: message', or only the message when it has no place")
    func errorDescription() {
        #expect(TagsFileEditError(line: 3, column: 5, message: "no").description == "3:5: no")
        #expect(TagsFileEditError(line: 0, column: 0, message: "no tag named 'x'").description == "no tag named 'x'")
    }

    @Test("Appending to a flow-style entry's list still works: only the entry to edit must be in block style")
    func appendAfterFlowEntry() throws {
        #expect(
            try TagsFileEditor.appending(TagsFileEntry(name: "b", uid: "0B"), to: "tags:\n  - {name: a}\n")
                == "tags:\n  - {name: a}\n  - name: b\n    uid: \"0B\"\n")
    }
}
