public import Foundation
import NDEF

/// A day of the calendar, as the tags file writes it (`2026-12-01`): no time, no zone. Compared with the day a
/// rule's time zone says it is (docs/doors.md, "The tags file").
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year.
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31.
    public var day: Int

    /// Parses `YYYY-MM-DD`; nil unless it is a day that exists (2027-02-29 does not).
    /// - Parameter text: the text.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, of: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day it is at `date` in `timeZone`.
    /// - Parameters:
    ///   - date: the instant.
    ///   - timeZone: the zone whose calendar counts.
    public init(_ date: Date, in timeZone: TimeZone) {
        self.init(date, calendar: .wallClock(in: timeZone))
    }

    /// The day it is at `date` on a calendar (a rule's, made once when the rule is loaded).
    /// - Parameters:
    ///   - date: the instant.
    ///   - calendar: the Gregorian calendar of the zone that counts.
    public init(_ date: Date, calendar: Calendar) {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
    }

    private static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// Earlier days first.
    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// One enrolled tag of the tags file (docs/doors.md, "The tags file").
public struct KnownTag: Sendable, Hashable {
    /// Its unique name, `{tag.name}`: free text, escaped wherever it is printed.
    public var name: String
    /// Its UID, uppercase hex without separators.
    public var uid: String
    /// Its groups, in the order written, `{tag.groups}`.
    public var groups: [String]
    /// Its first valid day, if any.
    public var validFrom: CalendarDay?
    /// Its last valid day (inclusive), if any.
    public var validUntil: CalendarDay?
    /// Whether it is disabled (refused everywhere it is listed).
    public var disabled: Bool
    /// The owner's note.
    public var note: String?
    /// Where the entry is written.
    public var location: SourceLocation

    /// Creates an entry.
    /// - Parameters:
    ///   - name: the unique name.
    ///   - uid: the UID, uppercase hex.
    ///   - groups: the groups.
    ///   - validFrom: the first valid day.
    ///   - validUntil: the last valid day.
    ///   - disabled: whether it is disabled.
    ///   - note: a note.
    ///   - location: where it is written.
    public init(
        name: String, uid: String, groups: [String] = [], validFrom: CalendarDay? = nil,
        validUntil: CalendarDay? = nil, disabled: Bool = false, note: String? = nil,
        location: SourceLocation = SourceLocation(file: "tags.yaml", line: 0, column: 0)
    ) {
        self.name = name
        self.uid = uid
        self.groups = groups
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.disabled = disabled
        self.note = note
        self.location = location
    }

    /// Whether a rule's `tags` list names this tag or one of its groups.
    /// - Parameter names: the rule's `tags`.
    public func isListed(in names: Set<String>) -> Bool {
        names.contains(name) || groups.contains(where: names.contains)
    }

    /// What the tag's own state says on a day: disabled, not yet valid, expired, or nothing (valid).
    /// - Parameter day: the day, in the zone that counts.
    /// - Returns: the reason the tag is refused on that day, or nil.
    public func refusal(on day: CalendarDay) -> DenialReason? {
        if disabled { return .disabled }
        if let validFrom, day < validFrom { return .notYetValid }
        if let validUntil, validUntil < day { return .expired }
        return nil
    }
}

/// The enrolled tags of a rule set, by UID (docs/doors.md, "The tags file").
public struct KnownTags: Sendable {
    /// The tags file's name in a rules folder.
    public static let fileName = "tags.yaml"
    /// Every entry, in file order.
    public let entries: [KnownTag]
    /// The tags file they were read from, if any.
    public let file: String?
    private let byUID: [String: Int]
    /// Every name and group, for `check`'s warning about a `tags` entry that names nothing.
    let namesAndGroups: Set<String>

    /// Creates the set.
    /// - Parameters:
    ///   - entries: the entries (UIDs unique).
    ///   - file: the file they came from.
    public init(_ entries: [KnownTag] = [], file: String? = nil) {
        self.entries = entries
        self.file = file
        var byUID: [String: Int] = [:]
        for (index, entry) in entries.enumerated() where byUID[entry.uid] == nil { byUID[entry.uid] = index }
        self.byUID = byUID
        self.namesAndGroups = Set(entries.flatMap { [$0.name] + $0.groups })
    }

    /// The entry for a UID.
    /// - Parameter uid: the UID, uppercase hex.
    public subscript(uid uid: String?) -> KnownTag? {
        guard let uid, let index = byUID[uid] else { return nil }
        return entries[index]
    }

    /// The entry with a name, or else with a UID (`tagrouter tags disable NAME`).
    /// - Parameter nameOrUID: a name, or a UID in any case with or without separators.
    public func entry(named nameOrUID: String) -> KnownTag? {
        if let entry = entries.first(where: { $0.name == nameOrUID }) { return entry }
        let digits = nameOrUID.filter { !":- ".contains($0) }.uppercased()
        return self[uid: digits]
    }
}

/// Why a door rule refused a tag (docs/doors.md, "Refusals"): the value of `{denied.reason}`.
public enum DenialReason: String, Sendable, Hashable, CaseIterable, Encodable {
    /// The rule lists enrolled tags (or UIDs) and this one is not enrolled (or not listed by UID).
    case unknownTag = "unknown-tag"
    /// The tag is enrolled, but neither its name nor a group of it is in the rule's `tags`.
    case notListed = "not-listed"
    /// The tag is listed but disabled.
    case disabled
    /// Before the tag's `validFrom`.
    case notYetValid = "not-yet-valid"
    /// After the tag's `validUntil`.
    case expired
    /// Outside every window of the rule's `when`.
    case outsideWindow = "outside-window"
    /// `sun`: the PICCData does not decrypt with the rule's meta read key.
    case wrongKey = "wrong-key"
    /// `sun`: the MAC does not match (an altered URL, or not the tag's file read key).
    case badMAC = "bad-mac"
    /// `sun`: a message whose counter is not above the highest accepted for its UID: a copied URL.
    case replay
    /// `sun`: the URI holds no SUN message the rule can read (items missing, not hex, LRP mode).
    case notSUN = "not-sun"
    /// The reader is locked out: a rule's `lockout:` counted too many refusals on it (docs/doors.md, "Lockout").
    case lockedOut = "locked-out"

    /// How strongly the refusal concerns the tag: a reason about a tag the rule lists beats `not-listed`, which
    /// beats `unknown-tag` (the one recorded when several rules refuse).
    var rank: Int {
        switch self {
        case .unknownTag: 0
        case .notListed: 1
        default: 2
        }
    }
}

extension KnownTags {
    /// Whether a UID is an ISO/IEC 14443-3 random ID: 4 bytes whose first is `08`, which the tag draws anew at
    /// every tap (a DESFire or NTAG 424 DNA with Random ID on), so that an entry by UID never matches it again.
    /// - Parameter uid: the UID, hex without separators (any case).
    public static func isRandomID(_ uid: String) -> Bool {
        uid.utf8.count == 8 && uid.uppercased().hasPrefix("08")
    }

    /// A warning for each entry whose UID is a random ID (``isRandomID(_:)``), at the entry's `file:line:col` (its
    /// name): the entry loads, but no tap will ever match it. `tagrouter doctor` shows them; the loader does not
    /// add them to a load's diagnostics (so `tagrouter check` does not print them).
    /// - Parameter text: the tags file's text, for the line the warning quotes.
    /// - Returns: the warnings, in file order.
    public func randomIDWarnings(text: String? = nil) -> [Diagnostic] {
        let lines = text?.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        return entries.filter { Self.isRandomID($0.uid) }.map { tag in
            let line = tag.location.line
            let source = lines.flatMap { line >= 1 && line <= $0.count ? String($0[line - 1]) : nil }
            return Diagnostic(
                file: tag.location.file, line: line, column: tag.location.column, severity: .warning,
                message: "tag '\(PrintableText.line(tag.name))' has the UID \(tag.uid), a random ID (4 bytes from 08, "
                    + "new at every tap): it will never match; admit the tag by its SUN message with a `sun` rule, "
                    + "or use a tag with Random ID turned off",
                sourceLine: source)
        }
    }
}
