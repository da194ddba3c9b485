import PeriodicWork
import Testing

/// The doorbell the outbox worker and the association refresher sleep on: no ring is lost, one ring wakes one
/// wait, and a wait without a ring ends at its timeout or at cancellation.
@Suite(.timeLimit(.minutes(1)))
struct WakeupTests {
    static let hour: Duration = .seconds(3600)

    @Test("a ring before the wait ends the next wait at once, and only that one")
    func ringBeforeWait() async {
        let wakeup = Wakeup()
        wakeup.signal()
        wakeup.signal()
        await wakeup.wait(for: Self.hour)
        // Two rings before a wait are one: the second wait sleeps until its timeout.
        let clock = ContinuousClock()
        let start = clock.now
        await wakeup.wait(for: .milliseconds(50))
        #expect(clock.now - start >= .milliseconds(50))
    }

    @Test("a ring during the wait ends it, long before its timeout")
    func ringDuringWait() async {
        let wakeup = Wakeup()
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(50))
                wakeup.signal()
            }
            // Without the ring this waits an hour, past the suite's time limit.
            await wakeup.wait(for: Self.hour)
        }
    }

    @Test("a wait ends when its task is cancelled, with a timeout or without", arguments: [Self.hour, nil])
    func cancelledWait(timeout: Duration?) async {
        let wakeup = Wakeup()
        let task = Task { await wakeup.wait(for: timeout) }
        task.cancel()
        await task.value
    }

    @Test("a ring ends a wait without a timeout")
    func ringEndsAnEndlessWait() async {
        let wakeup = Wakeup()
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(50))
                wakeup.signal()
            }
            await wakeup.wait(for: nil)
        }
    }
}
