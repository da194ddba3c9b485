import Foundation
import FuzzSupport
import WebhookRetry

/// How a webhook answer is handled once NIO has parsed it: the status code's verdict, the `Retry-After` value
/// and the delay before the next attempt (`AttemptResult`, `RetryPolicy` of the WebhookRetry module, which
/// TagActions uses). Input: two bytes of status code, one byte of attempt count, then the `Retry-After` value.
/// Invariants: every status has one verdict as documented; `Retry-After` parses to nil or to a delay of at
/// least 0 and at most 2^40 s, exactly its value for short digit strings; the delay is never negative nor
/// above the policy's caps.
@_cdecl("fuzz_webhook_answer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let status = Int(input.byte() ?? 0) << 8 | Int(input.byte() ?? 0)
    let attempts = Int(input.byte() ?? 1)
    let value = String(decoding: input.rest(), as: UTF8.self)

    let verdict = AttemptResult.verdict(forStatus: status)
    switch status {
    case 200...299: check(verdict == .delivered, "\(status) is \(verdict)")
    case 408, 429, 500...599: check(verdict == .retry, "\(status) is \(verdict)")
    default: check(verdict == .failed, "\(status) is \(verdict)")
    }

    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let retryAfter = RetryPolicy.parseRetryAfter(value, now: now)
    if let retryAfter {
        check(retryAfter >= .zero && retryAfter <= .seconds(Int64(1) << 40), "Retry-After \(value) is \(retryAfter)")
    }
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if !trimmed.isEmpty, trimmed.count <= 12, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
        check(retryAfter == .seconds(Int64(trimmed)!), "Retry-After \(trimmed) is \(String(describing: retryAfter))")
    }

    let policy = RetryPolicy()
    var generator = SystemRandomNumberGenerator()
    let delay = policy.delayMilliseconds(afterAttempts: attempts, retryAfter: retryAfter, using: &generator)
    let cap = retryAfter == nil ? policy.maxDelay.milliseconds : policy.maxRetryAfter.milliseconds
    check(delay >= 0 && delay <= cap, "delay \(delay) ms after \(attempts) attempts, Retry-After \(value)")
    return 0
}
