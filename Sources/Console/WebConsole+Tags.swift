import Deadline
import Foundation
import Hummingbird
import Logging
import StateStore
import TagRules
import TagsFile

extension WebConsole {
    struct TagRow {
        var name: String
        var shownName: String
        var uid: String
        var groups: String
        var validFrom: String
        var validUntil: String
        var validity: String
        var state: String
        var note: String
        var disabled: Bool
    }

    struct ReaderChoice {
        var name: String
        var shownName: String
    }

    struct TagsPage {
        var layout: Layout
        var path: String
        var tags: [TagRow]
        var readers: [ReaderChoice]
    }

    struct EnrollForm: Decodable {
        var name: String
        var groups: String?
        var validFrom: String?
        var validUntil: String?
        var reader: String
    }

    struct UpdateForm: Decodable {
        var uid: String
        var name: String
        var groups: String?
        var validFrom: String?
        var validUntil: String?
    }

    struct EditForm: Decodable {
        /// The entry's UID (or name).
        var tag: String
        var edit: String
    }

    /// `GET /tags`; `POST /tags/enroll` (waits for the tag on the chosen reader, then adds it), `POST
    /// /tags/update` (name, groups, days), `POST /tags/edit` (disable, enable, remove).
    func addTagRoutes(to router: Router<ConsoleContext>) {
        router.get("/tags") { request, _ in
            try await self.page(request) { session in
                var layout = self.layout("Tags", path: "/tags", session: session)
                var path = ""
                var rows: [TagRow] = []
                do throws(ConsoleError) {
                    let listed = try self.tags.list()
                    path = listed.path
                    rows = listed.tags.map(Self.row)
                } catch {
                    layout.problem = error.description
                }
                let readers = self.feed.readers.map {
                    ReaderChoice(name: $0.name, shownName: DisplayText.visible($0.name))
                }
                return self.render("tags", TagsPage(layout: layout, path: path, tags: rows, readers: readers))
            }
        }
        router.post("/tags/enroll") { request, context in
            let (session, form) = try await self.write(request, EnrollForm.self, context: context)
            let entry = Self.entry(name: form.name, groups: form.groups, from: form.validFrom, until: form.validUntil)
            let (sentence, failed) = await self.enroll(entry, reader: form.reader)
            self.sessions.notify(session.id, sentence, isProblem: failed)
            return Self.redirect("/tags")
        }
        router.post("/tags/update") { request, context in
            let (session, form) = try await self.write(request, UpdateForm.self, context: context)
            var entry = Self.entry(name: form.name, groups: form.groups, from: form.validFrom, until: form.validUntil)
            // The name field shows the name with its invisible characters written out: left as shown, it is kept.
            if let existing = try? self.tags.list().tags.first(where: { $0.uid == form.uid }),
                entry.name == DisplayText.visible(existing.name)
            {
                entry.name = existing.name
            }
            do throws(ConsoleError) {
                let sentence = try self.tags.enroll(
                    entry, tag: EnrollingTag(uid: form.uid, uri: nil, reader: "console", tech: nil), replacing: true)
                self.sessions.notify(session.id, sentence)
            } catch {
                self.sessions.notify(session.id, error.description, isProblem: true)
            }
            return Self.redirect("/tags")
        }
        router.post("/tags/edit") { request, context in
            let (session, form) = try await self.write(request, EditForm.self, context: context)
            guard let edit = TagEdit(rawValue: form.edit) else {
                throw HTTPError(.badRequest, message: "unknown edit '\(DisplayText.visible(form.edit))'")
            }
            do throws(ConsoleError) {
                self.sessions.notify(session.id, try self.tags.edit(edit, name: form.tag))
            } catch {
                self.sessions.notify(session.id, error.description, isProblem: true)
            }
            return Self.redirect("/tags")
        }
    }

    /// Claims the reader for an enrollment (``TagsFile/LearnClaim``, as `tagrouter learn` does), waits for the
    /// router to hold the next tag put on it, and enrolls that tag.
    /// - Returns: one sentence, and whether it tells of a failure.
    func enroll(_ entry: TagEntryRequest, reader: String) async -> (String, Bool) {
        guard !entry.name.isEmpty else { return ("Give the tag a name.", true) }
        guard let folder = tags.rulesFolder else {
            return ("The router's rules are not in a folder: there is no tags file to enroll in.", true)
        }
        let events = feed.subscribe()
        let timeout = enrollmentTimeout
        do {
            let seconds = Double(timeout.components.seconds) + 5
            try LearnClaim(readers: [reader], until: Date().addingTimeInterval(seconds)).write(in: folder)
        } catch {
            return ("Cannot claim the reader in \(folder): \(error.localizedDescription)", true)
        }
        defer { try? FileManager.default.removeItem(atPath: LearnClaim.path(in: folder)) }
        let held = await withDeadline(timeout) { () async -> LiveTap? in
            for await event in events {
                if case .tap(let tap) = event, tap.isHeldForEnrollment, tap.record.reader == reader { return tap }
            }
            return nil
        }
        guard let tap = held ?? nil else {
            return (
                "No tag was put on \"\(DisplayText.visible(reader))\" within \(timeout.components.seconds) s.", true
            )
        }
        guard let uid = tap.record.uid else {
            return ("The tag on \"\(DisplayText.visible(reader))\" gave no UID: it cannot be enrolled.", true)
        }
        do throws(ConsoleError) {
            let sentence = try tags.enroll(
                entry, tag: EnrollingTag(uid: uid, uri: tap.record.uri, reader: reader, tech: tap.tech),
                replacing: false)
            logger.info("console.enrolled", metadata: ["tag.name": "\(entry.name)", "reader.name": "\(reader)"])
            return (sentence, false)
        } catch {
            return (error.description, true)
        }
    }

    static func entry(name: String, groups: String?, from: String?, until: String?) -> TagEntryRequest {
        func day(_ text: String?) -> String? {
            text.flatMap {
                $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces)
            }
        }
        let groupList = (groups ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return TagEntryRequest(
            name: name.trimmingCharacters(in: .whitespaces), groups: groupList, validFrom: day(from),
            validUntil: day(until), note: nil)
    }

    static func row(_ tag: KnownTag) -> TagRow {
        let today = CalendarDay(Date(), in: .current)
        let from = tag.validFrom?.description ?? ""
        let until = tag.validUntil?.description ?? ""
        return TagRow(
            name: tag.name, shownName: DisplayText.visible(tag.name), uid: tag.uid,
            groups: tag.groups.map(DisplayText.visible).joined(separator: ", "), validFrom: from, validUntil: until,
            validity: from.isEmpty && until.isEmpty
                ? "always" : "\(from.isEmpty ? "…" : from) to \(until.isEmpty ? "…" : until)",
            state: tag.refusal(on: today)?.rawValue ?? "active", note: DisplayText.visible(tag.note),
            disabled: tag.disabled)
    }
}
