/// The result of one delivery attempt, classified.
struct AttemptResult: Sendable, Hashable {
    enum Verdict: Sendable, Hashable {
        /// A 2xx answer.
        case delivered
        /// A connection error, timeout, 408, 429 or 5xx: try again later.
        case retry
        /// Any other answer: give up now.
        case failed
    }

    var verdict: Verdict
    var status: Int?
    var error: String?
    var retryAfter: Duration?

    /// Classifies an HTTP status code.
    static func verdict(forStatus status: Int) -> Verdict {
        switch status {
        case 200...299: .delivered
        case 408, 429, 500...599: .retry
        default: .failed
        }
    }
}
