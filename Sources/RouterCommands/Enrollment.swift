import Foundation
import JSONOutput
import NDEF
import NFCTag
import PCSC
import TagRouterCore
import TagRules
import TagsFile

/// `tagrouter learn` (docs/cli.md): enrolls the next tag put on a reader in the tags file, beside a running
/// router that stands aside meanwhile (``LearnClaim``).
public enum Enrollment {
    /// What to enroll the tag as.
    public struct Request: Sendable {
        /// `--name`.
        public var name: String
        /// `--group`, repeatable.
        public var groups: [String]
        /// `--valid-from`.
        public var validFrom: String?
        /// `--valid-until`.
        public var validUntil: String?
        /// `--note`.
        public var note: String?
        /// `--replace`: replace the entry of a UID already enrolled, keeping what the other options do not set
        /// (its groups, validity days and note) and its `disabled`.
        public var replace: Bool
        /// `--timeout`: how long to wait for a tag.
        public var timeout: Duration

        /// Creates a request.
        /// - Parameters:
        ///   - name: the name.
        ///   - groups: the groups.
        ///   - validFrom: the first valid day, `YYYY-MM-DD`.
        ///   - validUntil: the last valid day.
        ///   - note: a note.
        ///   - replace: replace an entry of the same UID.
        ///   - timeout: how long to wait for a tag.
        public init(
            name: String, groups: [String] = [], validFrom: String? = nil, validUntil: String? = nil,
            note: String? = nil, replace: Bool = false, timeout: Duration = .seconds(60)
        ) {
            self.name = name
            self.groups = groups
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.note = note
            self.replace = replace
            self.timeout = timeout
        }
    }

    /// What was enrolled (`--json`).
    struct Enrolled: Encodable {
        var file: String
        var name: String
        var reader: String
        var replaced: Bool
        var tech: String
        var uid: String
    }

    /// How long `learn` waits for the tag to be taken away after enrolling it.
    static let removalWait: Duration = .seconds(30)

    /// Waits for the next tag on a used reader, reads its UID and enrolls it.
    /// - Parameters:
    ///   - request: the entry to write.
    ///   - readers: `--reader`.
    ///   - sources: `--rules`.
    ///   - json: print JSON.
    /// - Returns: one line; status 1 with one sentence when nothing was enrolled.
    public static func learn(_ request: Request, readers: ReaderFilter, sources: [String], json: Bool) async
        -> CommandOutput
    {
        do {
            try validate(request)
            let before = try TagsFile(sources: sources)
            if let taken = before.tags.entries.first(where: { $0.name == request.name }), !request.replace {
                throw CommandFailure(
                    "the name '\(PrintableText.line(request.name))' is taken (\(taken.location)); choose another")
            }
            let enrolled = try await withClaim(readers: readers, folder: before.folder, timeout: request.timeout) {
                reader, reading in
                try enroll(request, reader: reader, reading: reading, sources: sources)
            }
            let line =
                json
                ? JSONOutput.line(enrolled)
                : "enrolled \(TagsCommands.quoted(enrolled.name)) (\(enrolled.uid), \(enrolled.tech)) on "
                    + "\"\(enrolled.reader)\" in \(enrolled.file)"
            return .lines([line])
        } catch let failure as CommandFailure {
            return .failure(failure.description)
        } catch {
            return .failure("\(error)")
        }
    }

    static func validate(_ request: Request) throws(CommandFailure) {
        if request.name.isEmpty { throw CommandFailure("--name is empty") }
        if request.groups.contains(where: \.isEmpty) { throw CommandFailure("a --group is empty") }
        var days: [CalendarDay] = []
        for (option, text) in [("--valid-from", request.validFrom), ("--valid-until", request.validUntil)] {
            guard let text else { continue }
            guard let day = CalendarDay(text) else {
                throw CommandFailure("\(option) '\(PrintableText.line(text))' is not a day like 2026-12-01")
            }
            days.append(day)
        }
        if request.validFrom != nil, request.validUntil != nil, days[1] < days[0] {
            throw CommandFailure("--valid-until is before --valid-from")
        }
    }

    /// Writes the entry for the tag read, checking the file again (it may have changed while `learn` waited).
    private static func enroll(_ request: Request, reader: String, reading: TagReading, sources: [String])
        throws(CommandFailure) -> Enrolled
    {
        guard
            let uidBytes = identity(of: reading, reader: reader, sources: sources)
        else {
            throw CommandFailure("the tag on \"\(reader)\" gave no UID: it cannot be enrolled")
        }
        return try enroll(
            request, uid: uidBytes, reader: reader, tech: reading.technology.rawValue, sources: sources)
    }

    /// The UID to enroll a tag by: the one its SUN message proves when a rule of `sources` verifies one and the
    /// reader's UID is random or absent (an NTAG 424 DNA with Random ID is the UID it proves, docs/doors.md,
    /// "SUN: tags that prove themselves"), else the reader's (a random one is then refused).
    /// - Parameters:
    ///   - reading: the tag as read.
    ///   - reader: the reader's name.
    ///   - sources: the rules, whose `sun` keys come from `environment`.
    ///   - environment: where `${NAME}` is read.
    static func identity(
        of reading: TagReading, reader: String, sources: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [UInt8]? {
        if let uid = reading.uid, !KnownTags.isRandomID(UID.hex(uid)) { return uid }
        guard case .message(let bytes) = reading.content, let message = try? NDEFMessage(decoding: bytes) else {
            return reading.uid
        }
        let event = TagEvent(
            uid: reading.uid.map(UID.hex), reader: reader, tech: reading.technology.rawValue, message: message)
        return provedUID(of: event, sources: sources, environment: environment) ?? reading.uid
    }

    /// The UID a tag's SUN message proves, when a rule of `sources` verifies it; nil otherwise.
    /// - Parameters:
    ///   - event: the tag as the rules see it.
    ///   - sources: the rules.
    ///   - environment: where `${NAME}` is read.
    static func provedUID(
        of event: TagEvent, sources: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [UInt8]? {
        guard let rules = RuleSet.load(sources: sources, environment: environment).ruleSet else { return nil }
        return rules.decide(event, at: Date()).event.sun.flatMap { HexText.bytes($0.uid) }
    }

    /// Writes the entry for a UID read on `reader`, under the folder's lock: refused for a random ID.
    static func enroll(_ request: Request, uid uidBytes: [UInt8], reader: String, tech: String, sources: [String])
        throws(CommandFailure) -> Enrolled
    {
        let uid = UID.hex(uidBytes)
        if KnownTags.isRandomID(uid) {
            throw CommandFailure(
                "the tag on \"\(PrintableText.line(reader))\" uses a random ID (its UID \(uid) changes at every "
                    + "tap), so it cannot be enrolled by UID: admit it by its SUN message with a `sun` rule, or use "
                    + "a tag with Random ID turned off")
        }
        return try TagsFile.editing(sources: sources) { file throws(CommandFailure) in
            try enroll(request, uid: uid, reader: reader, tech: tech, in: file)
        }
    }

    /// Adds or replaces the entry in the file, under the folder's lock.
    private static func enroll(_ request: Request, uid: String, reader: String, tech: String, in file: TagsFile)
        throws(CommandFailure) -> Enrolled
    {
        let existing = file.tags[uid: uid]
        if let existing, !request.replace {
            throw CommandFailure(
                "\(uid) is already enrolled as '\(PrintableText.line(existing.name))' (\(existing.location)); "
                    + "pass --replace to replace that entry")
        }
        let entry = try replacement(for: existing, by: request, uid: uid)
        if let taken = file.tags.entries.first(where: { $0.name == request.name }), taken.uid != uid {
            throw CommandFailure(
                "the name '\(PrintableText.line(request.name))' is taken by \(taken.uid) (\(taken.location))")
        }
        let newText: String
        do {
            if let text = file.text, let existing {
                newText = try TagsFileEditor.replacing(entryNamed: existing.name, with: entry, in: text)
            } else if let text = file.text {
                newText = try TagsFileEditor.appending(entry, to: text)
            } else {
                newText = TagsFileEditor.newFile(with: entry)
            }
        } catch {
            throw file.failure(error)
        }
        try file.write(newText)
        return Enrolled(
            file: file.path, name: request.name, reader: reader, replaced: existing != nil, tech: tech, uid: uid)
    }

    /// The entry `request` writes for `uid`: with `--replace`, what it does not set (groups, validity days, note)
    /// and the old entry's `disabled` are kept, so that enrolling a disabled (lost) fob again does not enable it.
    /// - Throws: ``CommandFailure`` when a day given and a day kept would end before they begin.
    static func replacement(for existing: KnownTag?, by request: Request, uid: String) throws(CommandFailure)
        -> TagsFileEntry
    {
        guard let existing else {
            return TagsFileEntry(
                name: request.name, uid: uid, groups: request.groups, validFrom: request.validFrom,
                validUntil: request.validUntil, note: request.note)
        }
        let entry = TagsFileEntry(
            name: request.name, uid: uid, groups: request.groups.isEmpty ? existing.groups : request.groups,
            validFrom: request.validFrom ?? existing.validFrom?.description,
            validUntil: request.validUntil ?? existing.validUntil?.description, note: request.note ?? existing.note,
            disabled: existing.disabled)
        if let from = entry.validFrom.flatMap(CalendarDay.init), let until = entry.validUntil.flatMap(CalendarDay.init),
            until < from
        {
            let kept = request.validFrom == nil ? "validFrom \(from)" : "validUntil \(until)"
            throw CommandFailure(
                "--valid-\(request.validFrom == nil ? "until" : "from") ends the validity before the \(kept) kept "
                    + "from \(existing.location); give --valid-from and --valid-until together")
        }
        return entry
    }

    /// Claims the used readers in the rules folder, waits for the next tag put on one of them (one already there
    /// does not count), reads it and runs `body`; then asks for the tag to be taken away and waits for it (at most
    /// ``removalWait``) before the claim goes.
    private static func withClaim<T: Sendable>(
        readers filter: ReaderFilter, folder: String, timeout: Duration,
        _ body: (String, TagReading) throws -> T
    ) async throws -> T {
        let logger = ReaderCommands.logger
        let (claimed, occupied) = try await PCSCContext.withContext(logger: logger) { context in
            let all = try await context.readers()
            let matching = all.filter(filter.accepts)
            guard !matching.isEmpty else { throw CommandFailure(filter.noReaderSentence(readers: all)) }
            let statuses = try await context.status(of: matching)
            return (matching, Set(statuses.filter(\.isCardPresent).map(\.reader)))
        }
        let claimPath = LearnClaim.path(in: folder)
        let until = Date().addingTimeInterval(
            Double(timeout.components.seconds + Self.removalWait.components.seconds + 5))
        do {
            try LearnClaim(readers: claimed, until: until).write(in: folder)
        } catch {
            throw CommandFailure("cannot claim the readers in \(claimPath): \(error.localizedDescription)")
        }
        defer { unlink(claimPath) }
        let names = claimed.map { "\"\($0)\"" }.joined(separator: ", ")
        Terminal.printError("put the tag on \(names)")
        let watcher = ReaderWatcher(logger: logger)
        let timer = Task {
            try? await Task.sleep(for: timeout)
            watcher.stop()
        }
        defer { timer.cancel() }
        var events = watcher.makeAsyncIterator()
        var present = occupied
        var found: (reader: String, atr: [UInt8])?
        while found == nil, let event = await events.next() {
            switch event {
            case .cardPresented(let reader, let atr, _) where claimed.contains(reader) && !present.contains(reader):
                found = (reader, atr)
            case .cardRemoved(let reader):
                present.remove(reader)
            default:
                break
            }
        }
        timer.cancel()
        guard let (reader, atr) = found else {
            _ = await events.next()
            throw CommandFailure("no tag was put on \(names) within \(DurationText.format(timeout))")
        }
        let reading = try await PCSCContext.withContext(logger: logger) { context in
            do {
                return try await CardReading.read(reader: reader, atr: atr, context: context)
            } catch {
                throw CommandFailure("reader \"\(reader)\": the tag could not be read: \(error)")
            }
        }
        let result: T
        do {
            result = try body(reader, reading)
        } catch {
            watcher.stop()
            _ = await events.next()
            throw error
        }
        Terminal.printError("remove the tag")
        let removal = Task {
            try? await Task.sleep(for: Self.removalWait)
            watcher.stop()
        }
        defer { removal.cancel() }
        while let event = await events.next() {
            if case .cardRemoved(reader) = event { break }
        }
        watcher.stop()
        _ = await events.next()
        return result
    }
}
