/// The result of one delivery attempt, classified.
public struct AttemptResult: Sendable, Hashable {
    /// What to do next.
    public enum Verdict: Sendable, Hashable {
        /// A 2xx answer.
        case delivered
        /// A connection error, timeout, 408, 429 or 5xx: try again later.
        case retry
        /// Any other answer: give up now.
        case failed
    }

    /// What to do next.
    public var verdict: Verdict
    /// The HTTP status, when an answer came.
    public var status: Int?
    /// What went wrong, when no answer came.
    public var error: String?
    /// The answer's `Retry-After`, parsed.
    public var retryAfter: Duration?

    /// Creates a result.
    /// - Parameters:
    ///   - verdict: what to do next.
    ///   - status: the HTTP status, when an answer came.
    ///   - error: what went wrong, when no answer came.
    ///   - retryAfter: the answer's `Retry-After`, parsed.
    public init(verdict: Verdict, status: Int? = nil, error: String? = nil, retryAfter: Duration? = nil) {
        self.verdict = verdict
        self.status = status
        self.error = error
        self.retryAfter = retryAfter
    }

    /// Classifies an HTTP status code.
    public static func verdict(forStatus status: Int) -> Verdict {
        switch status {
        case 200...299: .delivered
        case 408, 429, 500...599: .retry
        default: .failed
        }
    }
}
