import TagRules
import Yams

/// One entry of the tags file as `tagrouter learn` writes it (docs/doors.md, "The tags file").
public struct TagsFileEntry: Sendable, Equatable {
    /// The tag's unique name: free text, written plain when that is safe, else double-quoted.
    public var name: String
    /// The tag's UID, uppercase hex, written double-quoted.
    public var uid: String
    /// The tag's groups, written as a flow list (`[staff, night]`) only when there are any.
    public var groups: [String]
    /// The first valid day, `YYYY-MM-DD`, written unquoted.
    public var validFrom: String?
    /// The last valid day (inclusive), `YYYY-MM-DD`, written unquoted.
    public var validUntil: String?
    /// The owner's note.
    public var note: String?
    /// Whether the tag is disabled: written `disabled: true` (last) when it is, not written when it is not.
    public var disabled: Bool

    /// Creates an entry.
    /// - Parameters:
    ///   - name: the unique name.
    ///   - uid: the UID, uppercase hex.
    ///   - groups: the groups, in order.
    ///   - validFrom: the first valid day, `YYYY-MM-DD`.
    ///   - validUntil: the last valid day, `YYYY-MM-DD`.
    ///   - note: a note.
    ///   - disabled: whether the tag is disabled.
    public init(
        name: String, uid: String, groups: [String] = [], validFrom: String? = nil, validUntil: String? = nil,
        note: String? = nil, disabled: Bool = false
    ) {
        self.name = name
        self.uid = uid
        self.groups = groups
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.note = note
        self.disabled = disabled
    }
}

/// Why an edit of the tags file cannot be made: a sentence, and where in the text it points.
public struct TagsFileEditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based line, or 0 when the problem is not tied to a place.
    public var line: Int
    /// The 1-based column in Unicode scalars, or 0 when the problem is not tied to a place.
    public var column: Int
    /// What is wrong, as a sentence without a final period.
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - line: the 1-based line, or 0.
    ///   - column: the 1-based column in Unicode scalars, or 0.
    ///   - message: what is wrong.
    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line:column: message`, or only the message when it is not tied to a place.
    public var description: String { line == 0 ? message : "\(line):\(column): \(message)" }
}

/// Edits the tags file (`tags.yaml`) as text, for `tagrouter learn` and `tagrouter tags disable|enable|remove`:
/// the user's comments, blank lines, key order and quoting survive everywhere except in the lines an edit touches.
///
/// The text is composed with Yams only to find things by the nodes' marks; every edit then works on whole lines.
/// An entry's lines run from the line of its `-` to its last line that is not blank or a comment (or further,
/// where a quoted or block scalar goes on over lines that look like those). Blank and comment lines after an
/// entry belong to what follows: a comment written above an entry stays with that entry. Every result is
/// composed again and compared with the intended change; a layout that would not give exactly that change (an
/// anchor used by another entry, a block scalar ending a file that has no final line break) is refused with an
/// error rather than written.
public enum TagsFileEditor {
    /// The text of a new tags file holding only `entry`: a comment line, `version: 1`, `tags:` and the entry.
    /// - Parameter entry: the first entry.
    /// - Returns: the file's text, ending with a line break.
    public static func newFile(with entry: TagsFileEntry) -> String {
        let header = [
            "# Enrolled NFC tags, written by `tagrouter learn`; you may edit this file by hand (comments are kept).",
            "version: 1",
            "tags:",
        ]
        return (header + entryLines(entry, dashColumn: 3, keyColumn: 5)).map { $0 + "\n" }.joined()
    }

    /// `text` with `entry` appended as the last item of the `tags` sequence, at the indentation of the items
    /// already there (two spaces under `tags:` when there are none: `tags:`, `tags: ~` or `tags: []`, whose
    /// value is removed).
    /// - Parameters:
    ///   - entry: the new entry.
    ///   - text: the tags file's text.
    /// - Returns: the new text, ending with a line break.
    /// - Throws: `TagsFileEditError` if the text is not a tags file this editor can edit, or a tag with the
    ///   entry's name exists already.
    public static func appending(_ entry: TagsFileEntry, to text: String) throws(TagsFileEditError) -> String {
        var file = try TagsText(text)
        if let existing = file.entries.first(where: { $0.name == entry.name }) {
            throw existing.error("a tag named \(display(entry.name)) exists already")
        }
        let place: (line: Int, column: Int)
        if let last = file.entries.last {
            let keyOffset = file.entries.last(where: { !$0.isFlow }).map { $0.keyColumn - $0.dashColumn } ?? 2
            let lines = entryLines(entry, dashColumn: last.dashColumn, keyColumn: last.dashColumn + keyOffset)
            file.replaceLines(last.lastLine + 1..<last.lastLine + 1, with: lines)
            place = (last.dashLine, last.dashColumn)
        } else {
            let after = try file.removeEmptyTagsValue()
            let dashColumn = file.tagsKeyColumn + 2
            file.replaceLines(
                after + 1..<after + 1, with: entryLines(entry, dashColumn: dashColumn, keyColumn: dashColumn + 2))
            place = (file.tagsKeyLine, file.tagsKeyColumn)
        }
        if let last = file.lines.indices.last, file.lines[last].end.isEmpty { file.lines[last].end = file.newline }
        let expected = file.entries.map { Expected.same($0.node) } + [.entry(entry)]
        return try verified(file, expected, place: place, subject: "append the tag")
    }

    /// `text` with the entry whose `name` equals `name` replaced by `entry`, at the same place and indentation;
    /// the comment lines above it are kept, its own lines (with their comments) are not: what it holds afterwards,
    /// `disabled:` included, is exactly `entry` (`tagrouter learn --replace` carries the old entry's state over).
    /// - Parameters:
    ///   - name: the name of the entry to replace, exactly as it reads after YAML decoding.
    ///   - entry: the new entry.
    ///   - text: the tags file's text.
    /// - Returns: the new text.
    /// - Throws: `TagsFileEditError` if the text is not a tags file this editor can edit, there is no tag named
    ///   `name`, it is written in flow style, or another tag is named like `entry`.
    public static func replacing(entryNamed name: String, with entry: TagsFileEntry, in text: String)
        throws(TagsFileEditError) -> String
    {
        var file = try TagsText(text)
        let index = try file.blockEntry(named: name)
        let old = file.entries[index]
        if let other = file.entries.first(where: { $0.name == entry.name && $0.name != name }) {
            throw other.error("a tag named \(display(entry.name)) exists already")
        }
        let lines = entryLines(entry, dashColumn: old.dashColumn, keyColumn: old.keyColumn)
        file.replaceLines(old.dashLine..<old.lastLine + 1, with: lines)
        var expected = file.entries.map { Expected.same($0.node) }
        expected[index] = .entry(entry)
        return try verified(file, expected, place: (old.dashLine, old.dashColumn), subject: "replace the tag")
    }

    /// `text` with the entry's `disabled:` set: an existing `disabled:` value is replaced in place (the rest of
    /// its line, such as a trailing comment, kept); otherwise a `disabled: true` line is added just after the
    /// entry's last line, at the indentation of its keys. Enabling an entry that has no `disabled:` key returns
    /// the text unchanged.
    /// - Parameters:
    ///   - disabled: whether the tag is to be disabled.
    ///   - name: the name of the entry, exactly as it reads after YAML decoding.
    ///   - text: the tags file's text.
    /// - Returns: the new text.
    /// - Throws: `TagsFileEditError` if the text is not a tags file this editor can edit, there is no tag named
    ///   `name`, it is written in flow style, or its `disabled:` value is not a one-line scalar.
    public static func settingDisabled(_ disabled: Bool, entryNamed name: String, in text: String)
        throws(TagsFileEditError) -> String
    {
        var file = try TagsText(text)
        let index = try file.blockEntry(named: name)
        let entry = file.entries[index]
        let value = disabled ? "true" : "false"
        if let pair = entry.mapping.first(where: { $0.key.scalar?.string == "disabled" }) {
            try file.replaceScalar(pair.value, with: value)
        } else if disabled {
            let line = String(repeating: " ", count: entry.keyColumn - 1) + "disabled: true"
            file.replaceLines(entry.lastLine + 1..<entry.lastLine + 1, with: [line])
        } else {
            return text
        }
        var expected = file.entries.map { Expected.same($0.node) }
        expected[index] = .disabled(entry.mapping, disabled)
        return try verified(
            file, expected, place: (entry.dashLine, entry.dashColumn), subject: "set 'disabled' of the tag")
    }

    /// `text` without the entry's lines, nor the comment lines directly above its `-` line (with no blank line
    /// between), which are taken to be about it. Comment lines after it, above the next entry, are kept. Blank
    /// lines do not pile up: with a blank line both before and after the entry, the one before goes too; the
    /// blank lines after the entry go with it when it comes right under `tags:`, or right after an entry ending
    /// with a `|+` block scalar (which would take them in). Removing the only entry leaves `tags:` with no items
    /// (YAML null), which ``appending(_:to:)`` accepts.
    /// - Parameters:
    ///   - name: the name of the entry to remove, exactly as it reads after YAML decoding.
    ///   - text: the tags file's text.
    /// - Returns: the new text.
    /// - Throws: `TagsFileEditError` if the text is not a tags file this editor can edit, there is no tag named
    ///   `name`, or it is written in flow style.
    public static func removing(entryNamed name: String, from text: String) throws(TagsFileEditError) -> String {
        var file = try TagsText(text)
        let index = try file.blockEntry(named: name)
        let entry = file.entries[index]
        var range = entry.firstLine..<entry.lastLine + 1
        // A blank line that ends the entry before (a block scalar's `|+`) is not free to go.
        let floor = index > 0 ? file.entries[index - 1].lastLine : file.tagsKeyLine
        let blankBefore = range.lowerBound - 1 > floor && file.isBlank(range.lowerBound - 1)
        let blankAfter = range.upperBound > file.lines.count || file.isBlank(range.upperBound)
        // Blank lines after the entry go with it when they would end up after a `|+` scalar (and in it).
        let afterKeeping = index > 0 && file.entries[index - 1].keepsBlankLines && range.lowerBound - 1 == floor
        if blankBefore && blankAfter {
            range = range.lowerBound - 1..<range.upperBound
        } else if range.lowerBound == file.tagsKeyLine + 1 || afterKeeping {
            var upper = range.upperBound
            while upper <= file.lines.count && file.isBlank(upper) { upper += 1 }
            range = range.lowerBound..<upper
        }
        file.replaceLines(range, with: [])
        var expected = file.entries.map { Expected.same($0.node) }
        expected.remove(at: index)
        return try verified(file, expected, place: (entry.dashLine, entry.dashColumn), subject: "remove the tag")
    }

    /// A YAML scalar for `text`: plain when that is safe, else double-quoted.
    ///
    /// Plain means only letters (ASCII or not), digits, inner spaces and `-_.@/`, not starting with `-`, `.`,
    /// `@` or a digit (so nothing that reads as an indicator, a number or a date), and not a YAML 1.1 boolean or
    /// null word (`yes`, `no`, `y`, `n`, `on`, `off`, `true`, `false`, `null`, in any case). Double-quoted text
    /// escapes `"`, `\`, every control character (U+0000–U+001F, U+007F–U+009F) and U+2028, U+2029, U+FEFF,
    /// U+FFFE, U+FFFF, as `\"`, `\\`, `\n`, `\t`, `\xNN` or `\uNNNN`.
    /// - Parameter text: the text.
    /// - Returns: the scalar as it is to be written after `key: ` or in a flow list.
    public static func scalar(_ text: String) -> String {
        isPlainSafe(text) ? text : doubleQuoted(text)
    }
}

// MARK: - Writing

extension TagsFileEditor {
    /// The words YAML 1.1 reads as booleans or null, lowercased.
    private static let reservedWords: Set<String> = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"]

    /// Whether `text` reads back as itself written plain, in a block mapping value and in a flow list alike.
    static func isPlainSafe(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, first != " ", last != " " else { return false }
        if "-.@0123456789".unicodeScalars.contains(first) || reservedWords.contains(text.lowercased()) {
            return false
        }
        return scalars.allSatisfy { scalar in
            if scalar.isASCII {
                return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || " -_.@/".unicodeScalars.contains(scalar)
            }
            return scalar.properties.isAlphabetic
        }
    }

    /// `text` double-quoted, with everything escaped that YAML would not read back as itself.
    static func doubleQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0x0A: result += "\\n"
            case 0x09: result += "\\t"
            case 0x00...0x1F, 0x7F...0x9F: result += "\\x" + hex(scalar.value, digits: 2)
            case 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF: result += "\\u" + hex(scalar.value, digits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// A day written unquoted when it has the form `YYYY-MM-DD`, else as any other scalar.
    private static func day(_ text: String) -> String {
        let digits = text.unicodeScalars.filter { ("0"..."9").contains($0) }.count
        let dashes = text.unicodeScalars.enumerated().filter { $0.element == "-" }.map(\.offset)
        return text.unicodeScalars.count == 10 && digits == 8 && dashes == [4, 7] ? text : scalar(text)
    }

    /// A name for a message: in single quotes when it is printable as it is, else double-quoted and escaped.
    static func display(_ name: String) -> String {
        let quoted = doubleQuoted(name)
        return quoted.unicodeScalars.count == name.unicodeScalars.count + 2 && !name.contains("'")
            ? "'\(name)'" : quoted
    }

    /// The lines of an entry (without line breaks), its `-` at `dashColumn` and its keys at `keyColumn`.
    static func entryLines(_ entry: TagsFileEntry, dashColumn: Int, keyColumn: Int) -> [String] {
        var fields = ["name: \(scalar(entry.name))", "uid: \(doubleQuoted(entry.uid))"]
        if !entry.groups.isEmpty { fields.append("groups: [\(entry.groups.map(scalar).joined(separator: ", "))]") }
        if let validFrom = entry.validFrom { fields.append("validFrom: \(day(validFrom))") }
        if let validUntil = entry.validUntil { fields.append("validUntil: \(day(validUntil))") }
        if let note = entry.note { fields.append("note: \(scalar(note))") }
        if entry.disabled { fields.append("disabled: true") }
        let keyColumn = max(keyColumn, dashColumn + 2)
        let dash =
            String(repeating: " ", count: dashColumn - 1) + "-"
            + String(repeating: " ", count: keyColumn - dashColumn - 1)
        let indent = String(repeating: " ", count: keyColumn - 1)
        return fields.enumerated().map { ($0.offset == 0 ? dash : indent) + $0.element }
    }
}

// MARK: - Checking the result

extension TagsFileEditor {
    /// What one item of `tags` must read as after an edit.
    enum Expected {
        /// As it was.
        case same(Node)
        /// Exactly this entry, with no other key.
        case entry(TagsFileEntry)
        /// The original mapping with `disabled` set to this value, in place or added as the last key.
        case disabled(Node.Mapping, Bool)
    }

    /// The edited text, once it composes again into the original document with `tags` holding `expected`.
    private static func verified(
        _ file: TagsText, _ expected: [Expected], place: (line: Int, column: Int), subject: String
    )
        throws(TagsFileEditError) -> String
    {
        let text = file.text
        let refusal = TagsFileEditError(
            line: place.line, column: place.column,
            message: "cannot \(subject) without changing other parts of the file; edit the file by hand")
        guard let node = try? Yams.compose(yaml: text, Resolver.basic, Constructor.default, .utf8),
            case .mapping(let root) = node, root.count == file.root.count
        else { throw refusal }
        for (old, new) in zip(file.root, root) {
            guard old.key == new.key else { throw refusal }
            if old.key.scalar?.string == "tags" {
                guard let items = tagItems(new.value), items.count == expected.count,
                    zip(items, expected).allSatisfy(matches)
                else { throw refusal }
            } else if old.value != new.value {
                throw refusal
            }
        }
        return text
    }

    /// The items of a `tags` value: none for null, the nodes of a sequence, nil for anything else.
    private static func tagItems(_ node: Node) -> [Node]? {
        switch node {
        case .scalar(let scalar): YAMLNodes.isNull(scalar) ? [] : nil
        case .sequence(let sequence): Array(sequence)
        default: nil
        }
    }

    private static func matches(_ item: Node, _ expected: Expected) -> Bool {
        switch expected {
        case .same(let node):
            return item == node
        case .entry(let entry):
            return decodedEntry(item) == entry
        case .disabled(let original, let disabled):
            guard case .mapping(let mapping) = item else { return false }
            let value = disabled ? "true" : "false"
            let new = Array(mapping)
            var expected = Array(original)
            if let index = expected.firstIndex(where: { $0.key.scalar?.string == "disabled" }) {
                guard index < new.count, new[index].value.scalar?.string == value else { return false }
                expected[index].value = new[index].value
            } else {
                guard let last = new.last, last.key.scalar?.string == "disabled", last.value.scalar?.string == value
                else { return false }
                expected.append(last)
            }
            return new.elementsEqual(expected) { $0.key == $1.key && $0.value == $1.value }
        }
    }

    /// An entry read back from its node: only the keys `TagsFileEntry` has, every value a string (`groups` a
    /// list of strings).
    private static func decodedEntry(_ node: Node) -> TagsFileEntry? {
        guard case .mapping(let mapping) = node else { return nil }
        var entry = TagsFileEntry(name: "", uid: "")
        var keys: [String] = []
        for (key, value) in mapping {
            guard let key = key.scalar?.string else { return nil }
            keys.append(key)
            if key == "groups" {
                guard case .sequence(let groups) = value else { return nil }
                entry.groups = groups.compactMap { $0.scalar?.string }
                guard entry.groups.count == groups.count else { return nil }
                continue
            }
            guard let string = value.scalar?.string else { return nil }
            switch key {
            case "name": entry.name = string
            case "uid": entry.uid = string
            case "validFrom": entry.validFrom = string
            case "validUntil": entry.validUntil = string
            case "note": entry.note = string
            case "disabled":
                guard value.scalar?.style == .plain, string == "true" || string == "false" else { return nil }
                entry.disabled = string == "true"
            default: return nil
            }
        }
        return keys.starts(with: ["name", "uid"]) && Set(keys).count == keys.count ? entry : nil
    }
}

// MARK: - Reading the layout

extension TagsFileEditor {
    /// One line of the text, in Unicode scalars (libyaml's columns), and the line break that ends it (empty for
    /// a last line without one).
    struct Line {
        var text: [Unicode.Scalar]
        var end: String
    }

    /// One item of `tags`, located in the text.
    struct Entry {
        /// The item.
        var node: Node
        /// The item's mapping.
        var mapping: Node.Mapping
        /// The value of its `name`.
        var name: String
        /// Whether it is written in flow style (`- {name: a}`).
        var isFlow: Bool
        /// Where its `-` is.
        var dashLine: Int
        var dashColumn: Int
        /// The column of its keys (that of its first key).
        var keyColumn: Int
        /// The first of the comment lines directly above its `-` line (the `-` line when there are none).
        var firstLine: Int
        /// Its last line: the last that is not blank or a comment, or further when a scalar goes on.
        var lastLine: Int
        /// Whether it ends with a block scalar that keeps its final line breaks (`|+`): blank lines after its
        /// last line would become part of the scalar.
        var keepsBlankLines: Bool

        /// An error at the item.
        func error(_ message: String) -> TagsFileEditError {
            TagsFileEditError(line: dashLine, column: dashColumn, message: message)
        }
    }

    /// A tags file's lines and the places in them that edits need.
    struct TagsText {
        var lines: [Line]
        /// The line break for new lines: `\r\n` if the file's first line break is one, else `\n`.
        let newline: String
        let root: Node.Mapping
        let tagsKey: Node
        let tagsValue: Node
        /// The items of `tags`, in order; none when `tags` is null or `[]`.
        private(set) var entries: [Entry] = []

        init(_ text: String) throws(TagsFileEditError) {
            let lines = Self.split(text)
            self.lines = lines
            newline = lines.first(where: { !$0.end.isEmpty })?.end == "\r\n" ? "\r\n" : "\n"
            let composed: Node?
            do {
                composed = try Yams.compose(yaml: text, Resolver.basic, Constructor.default, .utf8)
            } catch let error as YamlError {
                throw Self.syntaxError(error, lines)
            } catch {
                throw TagsFileEditError(line: 0, column: 0, message: "cannot parse YAML: \(error)")
            }
            guard let composed else {
                throw TagsFileEditError(line: 0, column: 0, message: "the file is empty: it needs 'version' and 'tags'")
            }
            guard case .mapping(let root) = composed else {
                throw Self.error(
                    at: composed,
                    "the file must be a mapping with 'version' and 'tags', not \(YAMLNodes.kind(composed))",
                    lines)
            }
            if Self.isFlow(composed, lines) {
                throw Self.error(
                    at: composed, "the file is written in flow style ({…}); write it in block style", lines)
            }
            guard let tags = root.first(where: { $0.key.scalar?.string == "tags" }) else {
                throw Self.error(at: composed, "the file has no 'tags' key", lines)
            }
            self.root = root
            tagsKey = tags.key
            tagsValue = tags.value
            try readEntries()
        }

        /// The text, edited.
        var text: String {
            var result = ""
            for line in lines {
                result.unicodeScalars.append(contentsOf: line.text)
                result += line.end
            }
            return result
        }

        var tagsKeyLine: Int { tagsKey.mark?.line ?? 1 }
        var tagsKeyColumn: Int { tagsKey.mark?.column ?? 1 }

        // MARK: Entries

        /// Finds the items of `tags` and their lines.
        private mutating func readEntries() throws(TagsFileEditError) {
            if let key = tagsKey.mark, let value = tagsValue.mark, (value.line, value.column) <= (key.line, key.column)
            {
                throw error(at: tagsKey, "'tags' must be written out here, not an alias")
            }
            let sequence: Node.Sequence
            switch tagsValue {
            case .scalar(let scalar) where YAMLNodes.isNull(scalar):
                return
            case .sequence(let value):
                sequence = value
            default:
                throw error(at: tagsValue, "'tags' must be a list of tags, not \(YAMLNodes.kind(tagsValue))")
            }
            if Self.isFlow(tagsValue, lines) {
                if sequence.isEmpty { return }
                throw error(
                    at: tagsValue,
                    "'tags' is written in flow style ([…]); write it in block style, one '- name: …' entry after another"
                )
            }
            let end = sequenceEnd()
            var dashes: [(line: Int, column: Int)] = []
            for item in sequence {
                // An alias's mark is that of its anchored node, elsewhere: no `-` before it, or not after the last.
                guard let mark = item.mark, let dash = dash(before: mark), dash.line > dashes.last?.line ?? tagsKeyLine,
                    dash.line <= end
                else { throw error(at: tagsKey, "every entry of 'tags' must be written out, not an alias") }
                dashes.append(dash)
            }
            for (index, item) in sequence.enumerated() {
                let (dashLine, dashColumn) = dashes[index]
                guard case .mapping(let mapping) = item else {
                    let message = "a tag entry must be a mapping (name: …, uid: …), not \(YAMLNodes.kind(item))"
                    throw TagsFileEditError(line: dashLine, column: dashColumn, message: message)
                }
                guard let name = mapping.first(where: { $0.key.scalar?.string == "name" })?.value.scalar,
                    !YAMLNodes.isNull(name)
                else {
                    throw TagsFileEditError(line: dashLine, column: dashColumn, message: "a tag entry has no 'name'")
                }
                let regionEnd = index + 1 < dashes.count ? dashes[index + 1].line - 1 : end
                let previousEnd = entries.last?.lastLine ?? tagsKeyLine
                var firstLine = dashLine
                while firstLine - 1 > previousEnd && isComment(firstLine - 1) { firstLine -= 1 }
                let (lastLine, keeps) = lastLine(of: item, from: dashLine, to: regionEnd)
                entries.append(
                    Entry(
                        node: item, mapping: mapping, name: name.string, isFlow: Self.isFlow(item, lines),
                        dashLine: dashLine, dashColumn: dashColumn,
                        keyColumn: mapping.first?.key.mark?.column ?? dashColumn + 2, firstLine: firstLine,
                        lastLine: lastLine, keepsBlankLines: keeps))
            }
        }

        /// The index of the entry named `name`, which must be the only one so named and written in block style.
        func blockEntry(named name: String) throws(TagsFileEditError) -> Int {
            let found = entries.indices.filter { entries[$0].name == name }
            guard let index = found.first else {
                throw TagsFileEditError(line: 0, column: 0, message: "no tag named \(display(name))")
            }
            if found.count > 1 {
                let lines = "lines \(entries[index].dashLine) and \(entries[found[1]].dashLine)"
                throw entries[found[1]].error("two tags are named \(display(name)) (\(lines))")
            }
            if entries[index].isFlow {
                throw entries[index].error(
                    "the tag \(display(name)) is written in flow style ({…}); write it in block style to edit it")
            }
            return index
        }

        /// The last line the `tags` sequence may reach: the line before the next top-level key, or before a
        /// document marker (`...`, `---`), or the last line of the file.
        private func sequenceEnd() -> Int {
            let pairs = Array(root)
            var end = lines.count
            if let index = pairs.firstIndex(where: { $0.key == tagsKey }), index + 1 < pairs.count,
                let next = pairs[index + 1].key.mark
            {
                end = min(end, next.line - 1)
            }
            for number in stride(from: tagsKeyLine + 1, through: end, by: 1) {
                let text = lines[number - 1].text
                let marker = text.starts(with: "---".unicodeScalars) || text.starts(with: "...".unicodeScalars)
                if marker && (text.count == 3 || Self.isSpace(text[3])) { return number - 1 }
            }
            return end
        }

        /// Where the `-` of an item is: before the item's mark on its line, or alone (with a comment at most) on
        /// a line above, with only blank and comment lines between.
        private func dash(before mark: Mark) -> (line: Int, column: Int)? {
            guard mark.line >= 1, mark.line <= lines.count else { return nil }
            var prefix = Array(lines[mark.line - 1].text.prefix(max(0, mark.column - 1)))
            var number = mark.line
            while true {
                while let last = prefix.last, Self.isSpace(last) { prefix.removeLast() }
                if let last = prefix.last {
                    let standsAlone = prefix.count == 1 || Self.isSpace(prefix[prefix.count - 2])
                    return last == "-" && standsAlone ? (number, prefix.count) : nil
                }
                number -= 1
                guard number >= 1 else { return nil }
                let text = lines[number - 1].text
                let indent = text.prefix(while: Self.isSpace).count
                let rest = text.dropFirst(indent)
                guard let first = rest.first, first != "#" else { continue }
                let afterDash = rest.dropFirst().drop(while: Self.isSpace)
                let spaced = rest.count == 1 || Self.isSpace(rest[rest.startIndex + 1])
                guard first == "-", spaced, afterDash.isEmpty || afterDash.first == "#" else { return nil }
                return (number, indent + 1)
            }
        }

        /// The last line of an item: its last line in `dashLine...regionEnd` that is not blank or a comment, or
        /// further down when its last scalar (quoted, or a block scalar) goes on over lines that look like those;
        /// and whether that scalar is a block scalar that keeps its final line breaks (`|+`).
        private func lastLine(of item: Node, from dashLine: Int, to regionEnd: Int) -> (Int, keeps: Bool) {
            var last = dashLine
            for number in stride(from: regionEnd, to: dashLine, by: -1) where !isBlank(number) && !isComment(number) {
                last = number
                break
            }
            // The deepest last node, and the column of the key or `-` that owns it (a block scalar's lines are
            // indented more).
            var node = item
            var owner = lines[dashLine - 1].text.prefix(while: Self.isSpace).count + 1
            while true {
                if case .mapping(let mapping) = node, let pair = Array(mapping).last {
                    owner = pair.key.mark?.column ?? owner
                    node = pair.value
                } else if case .sequence(let sequence) = node, let value = sequence.last {
                    owner = sequence.mark?.column ?? owner
                    node = value
                } else {
                    break
                }
            }
            guard case .scalar(let scalar) = node, let mark = node.mark, mark.line >= dashLine,
                mark.line <= regionEnd, !YAMLNodes.isNull(scalar)
            else { return (last, false) }
            let start = Self.contentStart(from: mark, lines)
            var keep = false
            switch scalar.style {
            case .doubleQuoted, .singleQuoted:
                let close = closingQuote(from: start, double: scalar.style == .doubleQuoted)
                last = max(last, close?.line ?? last)
            case .literal, .folded:
                let header = lines[start.line - 1].text.dropFirst(start.index).prefix {
                    !Self.isSpace($0) && $0 != "#"
                }
                keep = header.contains("+")
                for number in stride(from: start.line + 1, through: regionEnd, by: 1) {
                    let indent = lines[number - 1].text.prefix(while: Self.isSpace).count
                    if indent >= owner || (keep && isBlank(number)) {
                        last = max(last, number)
                    } else if !isBlank(number) {
                        break
                    }
                }
            default:
                break
            }
            return (min(last, regionEnd), keep)
        }

        /// Where the quote is that closes a quoted scalar opening at `start`.
        private func closingQuote(from start: (line: Int, index: Int), double: Bool) -> (line: Int, index: Int)? {
            let quote: Unicode.Scalar = double ? "\"" : "'"
            var number = start.line
            var index = start.index + 1
            while number <= lines.count {
                let text = lines[number - 1].text
                while index < text.count {
                    if double && text[index] == "\\" {
                        index += 2
                    } else if text[index] != quote {
                        index += 1
                    } else if !double && index + 1 < text.count && text[index + 1] == quote {
                        index += 2
                    } else {
                        return (number, index)
                    }
                }
                number += 1
                index = 0
            }
            return nil
        }

        // MARK: Editing

        /// Replaces the lines `range` (1-based) with `newLines`, each ending with the file's line break; a line
        /// before them that ends the file without a line break gets one. Entries are not moved: read them first.
        mutating func replaceLines(_ range: Range<Int>, with newLines: [String]) {
            let lower = range.lowerBound - 1
            let upper = min(range.upperBound - 1, lines.count)
            if lower > 0 && lines[lower - 1].end.isEmpty { lines[lower - 1].end = newline }
            lines.replaceSubrange(
                lower..<upper, with: newLines.map { Line(text: Array($0.unicodeScalars), end: newline) })
        }

        /// Replaces the one-line scalar `node` (with its anchor and tag, if any) by `value`, keeping the rest of
        /// its line.
        mutating func replaceScalar(_ node: Node, with value: String) throws(TagsFileEditError) {
            guard case .scalar(let scalar) = node, let mark = node.mark, mark.line <= lines.count else {
                throw error(at: node, "'disabled' must be true or false, not \(YAMLNodes.kind(node))")
            }
            let oneLine = error(at: node, "write 'disabled:' and its value on one line to change it")
            let number = mark.line
            let text = lines[number - 1].text
            let startIndex = min(mark.column - 1, text.count)
            var endIndex = startIndex
            if !(scalar.style == .plain && scalar.string.isEmpty) {
                let start = Self.contentStart(from: mark, lines)
                guard start.line == number else { throw oneLine }
                switch scalar.style {
                case .doubleQuoted, .singleQuoted:
                    guard let close = closingQuote(from: start, double: scalar.style == .doubleQuoted),
                        close.line == number
                    else { throw oneLine }
                    endIndex = close.index + 1
                case .plain:
                    endIndex = start.index
                    while endIndex < text.count && !(text[endIndex] == "#" && Self.isSpace(text[endIndex - 1])) {
                        endIndex += 1
                    }
                    while endIndex > start.index && Self.isSpace(text[endIndex - 1]) { endIndex -= 1 }
                default:
                    throw oneLine
                }
            }
            let before = text[..<startIndex]
            let after = text[endIndex...]
            let space: [Unicode.Scalar] = [" "]
            lines[number - 1].text =
                before + (before.last.map(Self.isSpace) == false ? space : []) + value.unicodeScalars
                + (after.first.map(Self.isSpace) == false ? space : []) + after
        }

        /// Removes the value of an empty `tags` (`~`, `null`, `[]`, with any anchor or tag), keeping the rest of
        /// its line (a comment), and returns the line after which the first entry goes.
        mutating func removeEmptyTagsValue() throws(TagsFileEditError) -> Int {
            guard let mark = tagsValue.mark, mark.line <= lines.count else { return tagsKeyLine }
            let text = lines[mark.line - 1].text
            let startIndex = min(mark.column - 1, text.count)
            var endIndex = startIndex
            // The value's words (`!!seq`, `&a`, `~`, `[]`) up to the end of the line or a comment.
            while endIndex < text.count && text[endIndex] != "#" {
                if text[endIndex] == "[" {
                    guard let close = text[endIndex...].firstIndex(of: "]") else {
                        throw error(at: tagsValue, "write 'tags: []' on one line")
                    }
                    endIndex = close
                }
                endIndex += 1
                while endIndex < text.count && Self.isSpace(text[endIndex]) { endIndex += 1 }
            }
            var before = Array(text[..<startIndex])
            while let last = before.last, Self.isSpace(last) { before.removeLast() }
            let after = text[endIndex...]
            if mark.line != tagsKeyLine && before.isEmpty && after.isEmpty {
                lines.remove(at: mark.line - 1)
                return mark.line - 1
            }
            lines[mark.line - 1].text = before + (after.isEmpty ? [] : [" "] + after)
            return mark.line
        }

        // MARK: Text

        func isBlank(_ number: Int) -> Bool {
            lines[number - 1].text.allSatisfy(Self.isSpace)
        }

        func isComment(_ number: Int) -> Bool {
            lines[number - 1].text.first(where: { !Self.isSpace($0) }) == "#"
        }

        static func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

        private func error(at node: Node, _ message: String) -> TagsFileEditError {
            Self.error(at: node, message, lines)
        }

        /// The text's lines, split where libyaml counts line breaks (LF, CR LF, CR, NEL, LS, PS).
        static func split(_ text: String) -> [Line] {
            var lines: [Line] = []
            var current: [Unicode.Scalar] = []
            var scalars = text.unicodeScalars[...]
            while let scalar = scalars.popFirst() {
                switch scalar {
                case "\r" where scalars.first == "\n":
                    scalars.removeFirst()
                    lines.append(Line(text: current, end: "\r\n"))
                    current = []
                case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}":
                    lines.append(Line(text: current, end: String(scalar)))
                    current = []
                default:
                    current.append(scalar)
                }
            }
            if !current.isEmpty { lines.append(Line(text: current, end: "")) }
            return lines
        }

        /// Where a node's content starts: after its anchor and tag (`&a !!str "x"`), if any.
        static func contentStart(from mark: Mark, _ lines: [Line]) -> (line: Int, index: Int) {
            var number = mark.line
            var index = mark.column - 1
            while number <= lines.count {
                let text = lines[number - 1].text
                while index < text.count && isSpace(text[index]) { index += 1 }
                if index >= text.count || text[index] == "#" {
                    number += 1
                    index = 0
                } else if text[index] == "&" || text[index] == "!" {
                    while index < text.count && !isSpace(text[index]) { index += 1 }
                } else {
                    return (number, index)
                }
            }
            return (mark.line, mark.column - 1)
        }

        /// Whether a node is a mapping or sequence written in flow style.
        static func isFlow(_ node: Node, _ lines: [Line]) -> Bool {
            guard node.scalar == nil, let mark = node.mark, mark.line <= lines.count else { return false }
            let start = contentStart(from: mark, lines)
            guard start.line <= lines.count, start.index < lines[start.line - 1].text.count else { return false }
            let first = lines[start.line - 1].text[start.index]
            return first == "{" || first == "["
        }

        /// An error at a node.
        static func error(at node: Node, _ message: String, _ lines: [Line]) -> TagsFileEditError {
            guard let mark = node.mark else { return TagsFileEditError(line: 0, column: 0, message: message) }
            let (line, column) = inside(line: mark.line, column: mark.column, lines)
            return TagsFileEditError(line: line, column: column, message: message)
        }

        /// A libyaml mark moved inside the text: at the end of a text without a final line break, libyaml points
        /// at the start of the line after the last; this points just past the last character instead.
        static func inside(line: Int, column: Int, _ lines: [Line]) -> (line: Int, column: Int) {
            guard line > lines.count, let last = lines.last, last.end.isEmpty else { return (line, column) }
            return (lines.count, last.text.count + 1)
        }

        /// A YAML syntax error at its place.
        static func syntaxError(_ error: YamlError, _ lines: [Line]) -> TagsFileEditError {
            switch error {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                let detail = context.map { " \($0.text)" } ?? ""
                let (line, column) = inside(line: mark.line, column: mark.column, lines)
                return TagsFileEditError(line: line, column: column, message: "YAML syntax error: \(problem)\(detail)")
            case .duplicatedKeysInMapping(let duplicates, let context):
                let (line, column) = inside(line: context.mark.line, column: context.mark.column, lines)
                let keys = duplicates.joined(separator: "', '")
                return TagsFileEditError(line: line, column: column, message: "duplicate key '\(keys)' in a mapping")
            default:
                return TagsFileEditError(line: 0, column: 0, message: "cannot parse YAML: \(error)")
            }
        }
    }
}
