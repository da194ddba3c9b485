public import TagRules

/// What the console's Tags page asks of the tags file: the same code as `tagrouter learn` and `tagrouter tags`
/// (comments kept, symbolic links followed, written whole and synced), so a running router reloads the file as
/// after any edit. `tagrouter run` passes the command line's implementation (docs/console.md, "Tags").
public protocol ConsoleTagsEditing: Sendable {
    /// The rules folder, where the tags file and an enrollment's reader claim live; nil when there is none.
    var rulesFolder: String? { get }
    /// The tags file's path and entries.
    /// - Throws: ``ConsoleError`` when it is broken or unreadable.
    func list() throws(ConsoleError) -> (path: String, tags: [KnownTag])
    /// Adds the entry of a tag read on a reader (or replaces the entry of its UID with `replacing`).
    /// - Parameters:
    ///   - entry: the entry's name, groups, validity days and note.
    ///   - tag: the tag as the router read it: its UID and URI (a SUN tag enrolls by the UID its message proves).
    ///   - replacing: replace an entry of the same UID instead of refusing.
    /// - Returns: one sentence saying what was done.
    /// - Throws: ``ConsoleError`` with one sentence saying why nothing was done.
    func enroll(_ entry: TagEntryRequest, tag: EnrollingTag, replacing: Bool) throws(ConsoleError) -> String
    /// Disables, enables or removes an entry.
    /// - Parameters:
    ///   - edit: what to do.
    ///   - name: the entry's name or UID.
    /// - Returns: one sentence saying what was done.
    /// - Throws: ``ConsoleError`` with one sentence saying why nothing was done.
    func edit(_ edit: TagEdit, name: String) throws(ConsoleError) -> String
}

/// The entry a Tags page form asks for.
public struct TagEntryRequest: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The groups.
    public var groups: [String]
    /// The first valid day, `YYYY-MM-DD`.
    public var validFrom: String?
    /// The last valid day.
    public var validUntil: String?
    /// A note.
    public var note: String?

    /// Creates a request.
    /// - Parameters:
    ///   - name: the name.
    ///   - groups: the groups.
    ///   - validFrom: the first valid day.
    ///   - validUntil: the last valid day.
    ///   - note: a note.
    public init(name: String, groups: [String], validFrom: String?, validUntil: String?, note: String?) {
        self.name = name
        self.groups = groups
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.note = note
    }
}

/// The tag being enrolled, as the router read it.
public struct EnrollingTag: Sendable, Hashable {
    /// The UID in hex.
    public var uid: String
    /// The URI on the tag, if any.
    public var uri: String?
    /// The reader's name.
    public var reader: String
    /// The technology.
    public var tech: String?

    /// Creates a tag.
    /// - Parameters:
    ///   - uid: the UID in hex.
    ///   - uri: the URI.
    ///   - reader: the reader.
    ///   - tech: the technology.
    public init(uid: String, uri: String?, reader: String, tech: String?) {
        self.uid = uid
        self.uri = uri
        self.reader = reader
        self.tech = tech
    }
}

/// An edit of one entry of the tags file.
public enum TagEdit: String, Sendable, Hashable, CaseIterable {
    /// `disabled: true`.
    case disable
    /// `disabled: false`.
    case enable
    /// The entry goes.
    case remove
}

/// What the console's Rules page asks of the rule tools: `tagrouter check`'s report and `tagrouter match
/// --explain`'s answer, from the command line's own code.
public protocol ConsoleRuleTools: Sendable {
    /// `tagrouter check` of the rules in use: the files, and every diagnostic with its file:line:col.
    /// - Returns: the report's text, and whether the rules have errors.
    func check() -> (text: String, hasErrors: Bool)
    /// `tagrouter match --explain` of one tag against the rules in use.
    /// - Parameters:
    ///   - uri: the tag's URI; nil for none.
    ///   - uid: the UID in hex; nil for none.
    ///   - reader: the reader's name.
    /// - Returns: the answer's text.
    func explain(uri: String?, uid: String?, reader: String) -> String
}
