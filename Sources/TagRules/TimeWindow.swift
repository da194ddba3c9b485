public import Foundation

/// One window of a rule's `when` (docs/doors.md, "Time windows"): the days it starts on and a span of local
/// wall-clock time. A span whose end is before its start crosses midnight into the next day.
public struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// The days the window starts on, as `Calendar` weekdays (1 is Sunday); nil: every day.
    var days: Set<Int>?
    /// The start, in minutes after midnight (inclusive).
    var start: Int
    /// The end, in minutes after midnight (exclusive), 1 to 1440; at or before `start`: the next day.
    var end: Int

    /// The day names of `days:`, Sunday first as `Calendar` counts.
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Whether a local time is inside the window.
    /// - Parameters:
    ///   - weekday: the local day, as `Calendar` counts (1 is Sunday).
    ///   - minute: minutes after local midnight.
    func contains(weekday: Int, minute: Int) -> Bool {
        func startsOn(_ day: Int) -> Bool { days?.contains(day) ?? true }
        if start < end { return startsOn(weekday) && minute >= start && minute < end }
        let previous = weekday == 1 ? 7 : weekday - 1
        return (startsOn(weekday) && minute >= start) || (startsOn(previous) && minute < end)
    }

    /// As written: `mon,tue 07:00-19:00`.
    public var description: String {
        func clock(_ minutes: Int) -> String {
            let hours = String(minutes / 60)
            let rest = String(minutes % 60)
            return (hours.count < 2 ? "0" + hours : hours) + ":" + (rest.count < 2 ? "0" + rest : rest)
        }
        let dayText = days.map { set in set.sorted().map { Self.dayNames[$0 - 1] }.joined(separator: ",") + " " }
        return (dayText ?? "") + "\(clock(start))-\(clock(end))"
    }

    /// Parses `HH:MM-HH:MM` (24:00 allowed as the end).
    /// - Parameter text: the span.
    /// - Returns: the start and end in minutes, or nil.
    static func parseSpan(_ text: String) -> (start: Int, end: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = minutes(parts[0]), let end = minutes(parts[1]), start < 1440, end > 0
        else { return nil }
        return (start, end)
    }

    private static func minutes(_ text: Substring) -> Int? {
        let clock = text.trimmingCharacters(in: .whitespaces)
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), minutes < 60,
            hours < 24 || (hours == 24 && minutes == 0)
        else { return nil }
        return hours * 60 + minutes
    }
}

/// When a rule admits tags: its windows in its time zone (docs/doors.md, "Time windows").
public struct Schedule: Sendable, Hashable {
    /// The windows; the rule admits a tag inside any of them.
    var windows: [TimeWindow]
    /// The Gregorian calendar of the zone whose wall clock the windows are read in, made once at load.
    var calendar: Calendar

    /// The zone whose wall clock the windows and the tags' validity days are read in.
    public var timeZone: TimeZone { calendar.timeZone }

    /// Whether `date` is inside a window, on the wall clock of the zone (daylight-saving changes as the zone's
    /// rules say: a local time that does not exist never happens, one that happens twice is inside both times).
    /// - Parameter date: the instant.
    func admits(_ date: Date) -> Bool {
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let weekday = parts.weekday ?? 1
        return windows.contains { $0.contains(weekday: weekday, minute: minute) }
    }
}

extension Calendar {
    /// The Gregorian calendar of a zone: the wall clock that time windows and validity days are read on.
    /// - Parameter timeZone: the zone.
    public static func wallClock(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
