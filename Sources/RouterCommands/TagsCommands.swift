public import Foundation
import JSONOutput
import NDEF
import TagRules
import TagsFile

/// `tagrouter tags list|disable|enable|remove` (docs/cli.md): the tags file, listed and edited in place.
public enum TagsCommands {
    /// One enrolled tag as `tags list --json` prints it.
    struct Listed: Encodable {
        var name: String
        var uid: String
        var groups: [String]
        var state: String
        var validFrom: String?
        var validUntil: String?
        var note: String?
        var location: String
    }

    /// `tagrouter tags list`: every enrolled tag and its state today (in the host's zone).
    /// - Parameters:
    ///   - sources: `--rules`.
    ///   - json: print JSON.
    ///   - now: the time that decides the state.
    /// - Returns: the list; status 1 with one sentence when the tags file is broken.
    public static func list(sources: [String], json: Bool, now: Date = Date()) -> CommandOutput {
        do {
            let file = try TagsFile(sources: sources)
            let today = CalendarDay(now, in: .current)
            let listed = file.tags.entries.map { tag in
                Listed(
                    name: tag.name, uid: tag.uid, groups: tag.groups,
                    state: tag.refusal(on: today)?.rawValue ?? "active", validFrom: tag.validFrom?.description,
                    validUntil: tag.validUntil?.description, note: tag.note, location: "\(tag.location)")
            }
            if json { return .lines([JSONOutput.line(listed)]) }
            if listed.isEmpty { return .lines(["no tags enrolled in \(file.path) (tagrouter learn enrolls one)"]) }
            return .lines(
                listed.map { tag in
                    var line = "\(quoted(tag.name))  \(tag.uid)  \(tag.state)"
                    if !tag.groups.isEmpty { line += "  groups=\(tag.groups.map(quoted).joined(separator: ","))" }
                    if tag.validFrom != nil || tag.validUntil != nil {
                        line += "  valid=\(tag.validFrom ?? "…")..\(tag.validUntil ?? "…")"
                    }
                    if let note = tag.note { line += "  note=\(quoted(note))" }
                    return line
                })
        } catch {
            return .failure("\(error)")
        }
    }

    /// What `tags disable|enable|remove` does to an entry.
    public enum Edit: Sendable {
        /// `disable`: `disabled: true`.
        case disable
        /// `enable`: `disabled: false`.
        case enable
        /// `remove`: the entry goes.
        case remove
    }

    /// `tagrouter tags disable|enable|remove NAME`: edits one entry of the tags file in place.
    /// - Parameters:
    ///   - edit: what to do.
    ///   - nameOrUID: the entry's name or UID.
    ///   - sources: `--rules`.
    /// - Returns: one line; status 1 with one sentence when there is no such entry or the file cannot be written.
    public static func edit(_ edit: Edit, _ nameOrUID: String, sources: [String]) -> CommandOutput {
        do {
            return try TagsFile.editing(sources: sources) { file throws(CommandFailure) in
                try self.edit(edit, nameOrUID, in: file)
            }
        } catch {
            return .failure("\(error)")
        }
    }

    /// One edit of the file, under the folder's lock.
    private static func edit(_ edit: Edit, _ nameOrUID: String, in file: TagsFile) throws(CommandFailure)
        -> CommandOutput
    {
        do {
            guard let text = file.text else {
                throw CommandFailure("there is no tags file at \(file.path) (tagrouter learn creates it)")
            }
            let entry = try file.entry(nameOrUID)
            let newText: String
            let done: String
            do {
                switch edit {
                case .disable:
                    newText = try TagsFileEditor.settingDisabled(true, entryNamed: entry.name, in: text)
                    done = "disabled"
                case .enable:
                    newText = try TagsFileEditor.settingDisabled(false, entryNamed: entry.name, in: text)
                    done = "enabled"
                case .remove:
                    newText = try TagsFileEditor.removing(entryNamed: entry.name, from: text)
                    done = "removed"
                }
            } catch {
                throw file.failure(error)
            }
            try file.write(newText)
            return .lines(["\(done) \(quoted(entry.name)) (\(entry.uid)) in \(file.path)"])
        } catch {
            return .failure("\(error)")
        }
    }

    /// A name for one terminal line: in quotes, control characters and quotes escaped.
    static func quoted(_ text: String) -> String {
        "\"" + PrintableText.line(text, escapingQuotes: true) + "\""
    }
}
