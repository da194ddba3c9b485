/// Waits until `condition` holds, looking again every 20 ms, and fails naming `what` once `timeout` has passed: the
/// one poll the harnesses wait with when no event says the condition came true.
/// - Parameters:
///   - what: what is waited for, for the failure's message.
///   - timeout: how long to wait (10 s by default).
///   - condition: the condition; an error it throws ends the wait.
/// - Throws: ``HarnessError`` when the time is up, or what `condition` threw.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !(try await condition()) {
        guard ContinuousClock.now < deadline else { throw HarnessError("expected \(what) within \(timeout)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
