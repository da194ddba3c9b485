import PeriodicWork
import Testing

/// The doorbell the outbox worker and the association refresher sleep on: no ring is lost, one ring wakes one
/// wait, and a wait without a ring ends at its timeout or at cancellation.
@Suite(.timeLimit(.minutes(1)))
struct WakeupTests {
    static let hour: Duration = .seconds(3600)

    @Test(
        "a ring before the wait ends the next wait at once, with a timeout or without, and only that one",
        arguments: [Self.hour, nil])
    func ringBeforeWait(timeout: Duration?) async {
        let wakeup = Wakeup()
        wakeup.signal()
        wakeup.signal()
        await wakeup.wait(for: timeout)
        // Two rings before a wait are one: the second wait sleeps until its timeout.
        let clock = ContinuousClock()
        let start = clock.now
        await wakeup.wait(for: .milliseconds(50))
        #expect(clock.now - start >= .milliseconds(50))
    }

    @Test("a ring during the wait ends it, with a timeout (long before it) or without", arguments: [Self.hour, nil])
    func ringDuringWait(timeout: Duration?) async {
        let wakeup = Wakeup()
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(50))
                wakeup.signal()
            }
            // Without the ring this waits an hour or for ever, past the suite's time limit.
            await wakeup.wait(for: timeout)
        }
    }

    @Test("a wait ends when its task is cancelled, with a timeout or without", arguments: [Self.hour, nil])
    func cancelledWait(timeout: Duration?) async {
        let wakeup = Wakeup()
        let task = Task { await wakeup.wait(for: timeout) }
        task.cancel()
        await task.value
    }
}
