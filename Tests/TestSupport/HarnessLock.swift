/// Lets one private-pcscd test run at a time in the whole test process (all suites, all targets).
///
/// Swift Testing counts a time limit from the test's start, waiting here included, and the fault suite holds the
/// lock for minutes at a time (1,000 taps take about 7). So the suites that take the lock have a limit of 45
/// minutes, above the whole pcscd part of a run (about 22 minutes on the 2-core VM): they catch hangs, not
/// queueing.
actor HarnessLock {
    static let shared = HarnessLock()

    private var isHeld = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if !isHeld {
            isHeld = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            isHeld = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
