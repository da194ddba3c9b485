public import Foundation

/// When to try a webhook again: exponential backoff with jitter, `Retry-After` honoured within bounds.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay before the second attempt.
    public var initialDelay: Duration
    /// The longest backoff between attempts.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; longer ones (or absurd dates) are clamped to it.
    public var maxRetryAfter: Duration

    /// Creates a policy.
    /// - Parameters:
    ///   - initialDelay: the first backoff (default 1 s), doubled on each failure.
    ///   - maxDelay: the cap (default 5 min).
    ///   - maxRetryAfter: the cap on `Retry-After` (default 1 h).
    public init(
        initialDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(300),
        maxRetryAfter: Duration = .seconds(3600)
    ) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The delay after the `attempts`-th failed attempt.
    ///
    /// Without `Retry-After`: a random value in [d/2, d] with d = min(initialDelay × 2^(attempts-1), maxDelay).
    /// With `Retry-After`: that many seconds (at most `maxRetryAfter`), never less.
    /// - Parameters:
    ///   - attempts: attempts made so far (1 after the first).
    ///   - retryAfter: the server's `Retry-After`, parsed, if any.
    ///   - generator: the randomness for the jitter.
    /// - Returns: the delay in milliseconds.
    public func delayMilliseconds(
        afterAttempts attempts: Int,
        retryAfter: Duration?,
        using generator: inout some RandomNumberGenerator
    ) -> Int64 {
        if let retryAfter {
            return min(max(0, retryAfter.milliseconds), maxRetryAfter.milliseconds)
        }
        let exponent = min(max(0, attempts - 1), 30)
        let base = max(1, initialDelay.milliseconds)
        let full = min(base.multipliedReportingOverflow(by: 1 << exponent).partialValue, maxDelay.milliseconds)
        let half = full / 2
        return half + Int64.random(in: 0...(full - half), using: &generator)
    }

    /// Parses `Retry-After`: delay seconds or an HTTP-date (RFC 9110 §10.2.3).
    ///
    /// An HTTP-date is read in the three forms RFC 9110 §5.6.7 requires recipients to accept, exactly as its
    /// grammar spells them (names are case-sensitive, the zone is `GMT`): IMF-fixdate
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year is the year
    /// with those last digits from 49 years before `now`'s year to 50 after) and asctime `Sun Nov  6 08:49:37 1994`.
    /// The day name is not checked against the date.
    /// - Parameters:
    ///   - value: the header value.
    ///   - now: the current time, for dates.
    /// - Returns: the delay (0 for dates in the past), or `nil` if the value is neither form.
    public static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Absurdly long digit strings saturate rather than overflow.
            guard trimmed.count <= 12, let seconds = Int64(trimmed) else { return .seconds(Int64(1) << 40) }
            return .seconds(seconds)
        }
        guard let epochSeconds = HTTPDate.secondsSince1970(Array(trimmed.utf8), now: now) else { return nil }
        let seconds = Date(timeIntervalSince1970: TimeInterval(epochSeconds)).timeIntervalSince(now)
        guard seconds.isFinite else { return nil }
        return .milliseconds(Int64(max(0, min(seconds, 1e12)) * 1000))
    }
}

/// A reader of the three HTTP-date forms of RFC 9110 §5.6.7, in the proleptic Gregorian calendar, UTC.
private struct HTTPDate {
    static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    let bytes: [UInt8]
    var index = 0

    /// The date `text` stands for, in seconds since 1970-01-01 00:00:00 UTC, or `nil` if it is no HTTP-date.
    static func secondsSince1970(_ text: [UInt8], now: Date) -> Int64? {
        var reader = HTTPDate(bytes: text)
        guard let date = reader.read(now: now), reader.index == text.count else { return nil }
        return date
    }

    private mutating func read(now: Date) -> Int64? {
        if name(Self.shortDays) != nil, literal(",") {
            // IMF-fixdate: day-name "," SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT"
            guard literal(" "), let day = digits(2), literal(" "), let month = name(Self.months), literal(" "),
                let year = digits(4), literal(" "), let time = timeOfDay(), literal(" GMT")
            else { return nil }
            return Self.seconds(year: year, month: month + 1, day: day, time: time)
        }
        index = 0
        if name(Self.shortDays) != nil, literal(" ") {
            // asctime-date: day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP 4DIGIT
            guard let month = name(Self.months), literal(" ") else { return nil }
            let day: Int
            if literal(" ") {
                guard let digit = digits(1) else { return nil }
                day = digit
            } else {
                guard let twoDigits = digits(2) else { return nil }
                day = twoDigits
            }
            guard literal(" "), let time = timeOfDay(), literal(" "), let year = digits(4) else { return nil }
            return Self.seconds(year: year, month: month + 1, day: day, time: time)
        }
        // rfc850-date: day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"
        index = 0
        guard name(Self.longDays) != nil, literal(", "), let day = digits(2), literal("-"),
            let month = name(Self.months), literal("-"), let shortYear = digits(2), literal(" "),
            let time = timeOfDay(), literal(" GMT")
        else { return nil }
        let nowSeconds = now.timeIntervalSince1970
        guard nowSeconds.isFinite, abs(nowSeconds) < 1e15 else { return nil }
        let currentYear = Self.year(ofDay: Int((nowSeconds / 86400).rounded(.down)))
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 {
            year -= 100
        } else if year <= currentYear - 50 {
            year += 100
        }
        return Self.seconds(year: year, month: month + 1, day: day, time: time)
    }

    /// time-of-day = hour ":" minute ":" second, each 2DIGIT: 00–23, 00–59, 00–59.
    private mutating func timeOfDay() -> Int? {
        guard let hour = digits(2), hour <= 23, literal(":"), let minute = digits(2), minute <= 59, literal(":"),
            let second = digits(2), second <= 59
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// Exactly `count` ASCII digits, as a number.
    private mutating func digits(_ count: Int) -> Int? {
        guard bytes.count - index >= count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// Consumes `text` if the input continues with it.
    private mutating func literal(_ text: String) -> Bool {
        let expected = text.utf8
        guard bytes.count - index >= expected.count, bytes[index..<(index + expected.count)].elementsEqual(expected)
        else { return false }
        index += expected.count
        return true
    }

    /// The position in `names` of the first name the input continues with.
    private mutating func name(_ names: [String]) -> Int? {
        for (position, name) in names.enumerated() where literal(name) { return position }
        return nil
    }

    /// Seconds since 1970 of a valid date and a time of day in seconds, or `nil` for a day the month lacks.
    private static func seconds(year: Int, month: Int, day: Int, time: Int) -> Int64? {
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1, day <= lengths[month - 1] else { return nil }
        return Int64(daysSince1970(year: year, month: month, day: day)) * 86400 + Int64(time)
    }

    /// Days from 1970-01-01 to a date (H. Hinnant's `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year of the day `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func year(ofDay days: Int) -> Int {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthShifted = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthShifted >= 10 ? 1 : 0)
    }
}
