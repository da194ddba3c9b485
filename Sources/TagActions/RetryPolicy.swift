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
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard trimmed.count <= 64, let date = formatter.date(from: trimmed) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds.isFinite else { return nil }
        return .milliseconds(Int64(max(0, min(seconds, 1e12)) * 1000))
    }
}
